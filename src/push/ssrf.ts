/**
 * @module push/ssrf
 * The SSRF guard for webhooks: a subscriber names a URL and ckg POSTs to it from inside
 * its own network, so a URL must not reach what only ckg can reach — the host itself, the LAN, the
 * cloud's metadata service (which hands out credentials). `judgeAddress` decides for one address;
 * `resolveWebhookTarget` checks a URL, resolves its host now and judges every address it gets.
 *
 * The caller connects to the address returned here and to no other (push/webhook-send.ts pins it),
 * so a name that answers a public address to the check and a private one to the connection (DNS
 * rebinding) gets nowhere.
 *
 * `allowPrivate` is for self-hosted receivers on loopback or the LAN: it lifts every refusal but
 * the cloud metadata addresses, which no receiver lives at.
 */
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";
import { CkgError } from "../errors.ts";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** The verdict on one address; `address` is its canonical form, the one to connect to. */
export type AddressVerdict = { allowed: true; address: string; family: 4 | 6 } | { allowed: false; reason: string };

export interface GuardOptions {
  /** Let loopback, private, link-local and other non-public addresses through (never cloud metadata). */
  allowPrivate: boolean;
}

/**
 * Metadata services, refused even with `allowPrivate`: AWS/GCP/Azure/OpenStack (169.254.169.254),
 * AWS ECS task credentials (169.254.170.2), EKS Pod Identity (169.254.170.23, fd00:ec2::23), AWS
 * IMDS over IPv6 (fd00:ec2::254), Alibaba (100.100.100.200), Oracle Cloud Classic (192.0.0.192).
 */
const METADATA: readonly Address[] = ["169.254.169.254", "169.254.170.2", "169.254.170.23", "100.100.100.200", "192.0.0.192", "fd00:ec2::254", "fd00:ec2::23"].map((text) =>
  ipaddr.parse(text),
);

/** Ranges that are not the public internet (IANA special-purpose registries); the first match names the reason. */
const V4_REFUSED = ranges([
  ["0.0.0.0/32", "unspecified"],
  ["0.0.0.0/8", "this network"],
  ["10.0.0.0/8", "private"],
  ["100.64.0.0/10", "carrier-grade NAT"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local / cloud metadata"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
]);

const V6_REFUSED = ranges([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["64:ff9b:1::/48", "local-use NAT64"],
  ["100::/64", "discard-only"],
  // Teredo hides the client's IPv4 address (XORed) in the last 32 bits and goes through a relay: no receiver needs it.
  ["2001::/32", "Teredo tunnel"],
  ["2001:2::/48", "benchmarking"],
  ["2001:db8::/32", "documentation"],
  ["3fff::/20", "documentation"],
  ["fc00::/7", "private (unique local)"],
  ["fe80::/10", "link-local"],
  ["fec0::/10", "site-local (deprecated)"],
  ["ff00::/8", "multicast"],
]);

/** Everything public in IPv6 today is inside 2000::/3; what is outside and not named above is refused as reserved. */
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/**
 * IPv6 forms that carry an IPv4 address the packets end up at: judged as that IPv4 address.
 * `extract` gives its four octets from the eight 16-bit parts.
 */
const EMBEDDING: readonly { name: string; cidr: [Address, number]; extract: (parts: number[]) => number[] }[] = [
  { name: "IPv4-mapped", cidr: ipaddr.parseCIDR("::ffff:0:0/96"), extract: (p) => octets(p[6], p[7]) },
  { name: "IPv4-translated", cidr: ipaddr.parseCIDR("::ffff:0:0:0/96"), extract: (p) => octets(p[6], p[7]) },
  { name: "IPv4-compatible", cidr: ipaddr.parseCIDR("::/96"), extract: (p) => octets(p[6], p[7]) },
  { name: "NAT64", cidr: ipaddr.parseCIDR("64:ff9b::/96"), extract: (p) => octets(p[6], p[7]) },
  { name: "6to4", cidr: ipaddr.parseCIDR("2002::/16"), extract: (p) => octets(p[1], p[2]) },
];

/** Whether a webhook may connect to `text` (an IPv4 or IPv6 address), and if not, why. */
export function judgeAddress(text: string, options: GuardOptions): AddressVerdict {
  const address = parseStrictly(text);
  if (!address) return { allowed: false, reason: `not an IP address in standard notation: ${JSON.stringify(text)}` };
  const refusal = refusalOf(address, options);
  if (refusal !== undefined) return { allowed: false, reason: refusal };
  return { allowed: true, address: address.toString(), family: address.kind() === "ipv4" ? 4 : 6 };
}

function refusalOf(address: Address, options: GuardOptions): string | undefined {
  if (METADATA.some((metadata) => sameAddress(address, metadata))) return `cloud metadata (${address.toString()})`;
  if (address instanceof ipaddr.IPv6) {
    // :: and ::1 lie inside ::/96 but are IPv6's own unspecified and loopback addresses, judged by the table below.
    const own = address.range() === "unspecified" || address.range() === "loopback";
    const embedding = own ? undefined : EMBEDDING.find(({ cidr }) => address.match(cidr));
    if (embedding) {
      const inner = new ipaddr.IPv4(embedding.extract(address.parts));
      const refusal = refusalOf(inner, options);
      return refusal === undefined ? undefined : `${embedding.name} ${inner.toString()}: ${refusal}`;
    }
  }
  if (options.allowPrivate) return undefined;
  const table = address instanceof ipaddr.IPv4 ? V4_REFUSED : V6_REFUSED;
  const hit = table.find(([cidr]) => address.match(cidr));
  if (hit) return hit[1];
  if (address instanceof ipaddr.IPv6 && !address.match(GLOBAL_UNICAST)) return "reserved (outside global unicast 2000::/3)";
  return undefined;
}

/** A name's addresses, as `dns.promises.lookup(name, { all: true })` gives them. */
export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Lookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export interface ResolveOptions extends GuardOptions {
  /** Resolves a host name; the system resolver unless a test gives its own. */
  lookup?: Lookup;
}

/** Where a webhook goes: the URL as given, its host (for Host and TLS SNI) and the vetted address to connect to. */
export interface WebhookTarget {
  url: URL;
  /** The URL's host name, IPv6 brackets removed. */
  host: string;
  address: string;
  family: 4 | 6;
}

/**
 * The guard said no. A `CkgError` (`invalid_request`) so that registering such a URL answers 400;
 * `reason` says which rule refused it.
 */
export class WebhookTargetRefused extends CkgError {
  readonly reason: string;

  constructor(reason: string) {
    super("invalid_request", `Webhook URL refused: ${reason}.`, { details: { field: "url", reason } });
    this.name = "WebhookTargetRefused";
    this.reason = reason;
  }
}

const systemLookup: Lookup = (hostname) => dns.lookup(hostname, { all: true });

/**
 * Checks a webhook URL (http or https, no credentials in it), resolves its host at call time (an IP
 * literal is not looked up) and refuses it if ANY address is refused: a name with one public and one
 * private address could be connected to the private one. Throws `WebhookTargetRefused`; a failed
 * lookup throws the resolver's own error (a temporary failure, not a refusal).
 */
export async function resolveWebhookTarget(url: string, options: ResolveOptions): Promise<WebhookTarget> {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed) throw new WebhookTargetRefused("not a valid URL");
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new WebhookTargetRefused(`scheme ${parsed.protocol} (only http and https)`);
  // Credentials in a URL end up in logs and Referer-like places; a receiver authenticates us by the signature.
  if (parsed.username !== "" || parsed.password !== "") throw new WebhookTargetRefused("credentials in the URL");
  const host = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (host === "") throw new WebhookTargetRefused("no host");

  const literal = isIP(host) !== 0;
  const answers = literal ? [{ address: host, family: isIP(host) }] : await (options.lookup ?? systemLookup)(host);
  if (answers.length === 0) throw new Error(`${host} resolved to no address`);
  let chosen: { address: string; family: 4 | 6 } | undefined;
  for (const answer of answers) {
    const verdict = judgeAddress(answer.address, options);
    if (!verdict.allowed) throw new WebhookTargetRefused(literal ? verdict.reason : `${host} resolves to ${answer.address}: ${verdict.reason}`);
    chosen ??= verdict;
  }
  // answers is not empty and every verdict was allowed, so chosen is set.
  const { address, family } = chosen as { address: string; family: 4 | 6 };
  return { url: parsed, host, address, family };
}

/**
 * Only the notation the system reads one way (what a URL's host and a resolver's answer are in):
 * ipaddr.js would also take "127.1" or "0x7f000001", which another parser may read otherwise, and
 * the address judged must be the address connected to. ipaddr.js reads "::a.b.c.d" (IPv4-compatible)
 * as "::ffff:a.b.c.d" (IPv4-mapped), another address: the dotted tail is written in hex first.
 */
function parseStrictly(text: string): Address | undefined {
  const family = isIP(text);
  if (family === 0) return undefined;
  if (family === 4) return ipaddr.IPv4.parse(text);
  const hex = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/, (_, a, b, c, d, zone = "") => {
    const [high, low] = [Number(a) * 256 + Number(b), Number(c) * 256 + Number(d)];
    return `${high.toString(16)}:${low.toString(16)}${zone}`;
  });
  return ipaddr.IPv6.parse(hex);
}

function ranges(list: readonly (readonly [string, string])[]): [[Address, number], string][] {
  return list.map(([cidr, label]) => [ipaddr.parseCIDR(cidr), `${label} (${cidr})`]);
}

function octets(high: number | undefined, low: number | undefined): number[] {
  const [h, l] = [high ?? 0, low ?? 0];
  return [h >> 8, h & 0xff, l >> 8, l & 0xff];
}

/** Compared by bytes, so that an IPv6 zone (fd00:ec2::254%eth0) does not make a metadata address another one. */
function sameAddress(a: Address, b: Address): boolean {
  return a.kind() === b.kind() && a.toByteArray().join(".") === b.toByteArray().join(".");
}
