/**
 * The SSRF guard: the decision on addresses of every refused range (with and without the allowance
 * for self-hosted receivers), cloud metadata refused always, and URL checks with the real resolver
 * for `localhost` and injected lookups for the rest. Nothing here opens a connection.
 */
import { describe, expect, test } from "bun:test";
import { judgeAddress, type ResolvedAddress, resolveWebhookTarget, WebhookTargetRefused } from "../../src/push/ssrf.ts";

/** [address, part of the reason it is refused for]: several addresses in each range, edges included. */
const REFUSED: readonly [string, string][] = [
  ["127.0.0.1", "loopback (127.0.0.0/8)"],
  ["127.255.255.254", "loopback (127.0.0.0/8)"],
  ["::1", "loopback (::1/128)"],
  ["10.0.0.1", "private (10.0.0.0/8)"],
  ["10.255.255.255", "private (10.0.0.0/8)"],
  ["172.16.0.1", "private (172.16.0.0/12)"],
  ["172.31.255.254", "private (172.16.0.0/12)"],
  ["192.168.0.1", "private (192.168.0.0/16)"],
  ["192.168.255.254", "private (192.168.0.0/16)"],
  ["fc00::1", "private (unique local) (fc00::/7)"],
  ["fd12:3456::1", "private (unique local) (fc00::/7)"],
  ["169.254.0.1", "link-local / cloud metadata (169.254.0.0/16)"],
  ["169.254.255.254", "link-local / cloud metadata (169.254.0.0/16)"],
  ["fe80::1", "link-local (fe80::/10)"],
  ["febf::1", "link-local (fe80::/10)"],
  ["fec0::1", "site-local (deprecated) (fec0::/10)"],
  ["100.64.0.1", "carrier-grade NAT (100.64.0.0/10)"],
  ["100.127.255.254", "carrier-grade NAT (100.64.0.0/10)"],
  ["0.0.0.0", "unspecified (0.0.0.0/32)"],
  ["0.1.2.3", "this network (0.0.0.0/8)"],
  ["::", "unspecified (::/128)"],
  ["224.0.0.1", "multicast (224.0.0.0/4)"],
  ["239.255.255.250", "multicast (224.0.0.0/4)"],
  ["ff02::1", "multicast (ff00::/8)"],
  ["255.255.255.255", "broadcast (255.255.255.255/32)"],
  ["240.0.0.1", "reserved (240.0.0.0/4)"],
  ["254.1.2.3", "reserved (240.0.0.0/4)"],
  ["198.18.0.1", "benchmarking (198.18.0.0/15)"],
  ["198.19.255.254", "benchmarking (198.18.0.0/15)"],
  ["2001:2::1", "benchmarking (2001:2::/48)"],
  ["192.0.2.1", "documentation (192.0.2.0/24)"],
  ["198.51.100.7", "documentation (198.51.100.0/24)"],
  ["203.0.113.9", "documentation (203.0.113.0/24)"],
  ["2001:db8::1", "documentation (2001:db8::/32)"],
  ["3fff::1", "documentation (3fff::/20)"],
  ["192.0.0.8", "IETF protocol assignments (192.0.0.0/24)"],
  ["100::1", "discard-only (100::/64)"],
  ["2001:0:4136:e378::1", "Teredo tunnel (2001::/32)"],
  ["64:ff9b:1::a00:1", "local-use NAT64 (64:ff9b:1::/48)"],
  ["4000::1", "reserved (outside global unicast 2000::/3)"],
  // IPv6 forms that carry an IPv4 address are judged as that address.
  ["::ffff:10.0.0.1", "IPv4-mapped 10.0.0.1: private (10.0.0.0/8)"],
  ["::ffff:127.0.0.1", "IPv4-mapped 127.0.0.1: loopback (127.0.0.0/8)"],
  ["::ffff:7f00:1", "IPv4-mapped 127.0.0.1: loopback"],
  ["::10.0.0.1", "IPv4-compatible 10.0.0.1: private (10.0.0.0/8)"],
  ["::ffff:0:192.168.1.1", "IPv4-translated 192.168.1.1: private (192.168.0.0/16)"],
  ["64:ff9b::10.0.0.1", "NAT64 10.0.0.1: private (10.0.0.0/8)"],
  ["64:ff9b::7f00:1", "NAT64 127.0.0.1: loopback"],
  ["2002:c0a8:0101::1", "6to4 192.168.1.1: private (192.168.0.0/16)"],
  ["2002:7f00:1::", "6to4 127.0.0.1: loopback"],
];

const METADATA = ["169.254.169.254", "169.254.170.2", "fd00:ec2::254", "fd00:ec2:0::254", "100.100.100.200", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1"];

const PUBLIC = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "100.63.255.255", "100.128.0.1", "172.15.255.255", "172.32.0.1", "169.253.255.255", "192.169.0.1", "2606:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1"];

describe("judgeAddress", () => {
  test.each(REFUSED)("%s is refused (%s), and allowed when private addresses are", (address, reason) => {
    const verdict = judgeAddress(address, { allowPrivate: false });
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(reason);
    expect(judgeAddress(address, { allowPrivate: true }).allowed).toBe(true);
  });

  test.each(METADATA)("cloud metadata %s is refused even when private addresses are allowed", (address) => {
    for (const allowPrivate of [false, true]) {
      const verdict = judgeAddress(address, { allowPrivate });
      expect(verdict).toMatchObject({ allowed: false });
      if (!verdict.allowed) expect(verdict.reason).toContain("cloud metadata");
    }
  });

  test.each(PUBLIC)("public %s is allowed", (address) => {
    for (const allowPrivate of [false, true]) expect(judgeAddress(address, { allowPrivate }).allowed).toBe(true);
  });

  test("the allowed address comes back in canonical form, the one to connect to", () => {
    expect(judgeAddress("127.0.0.1", { allowPrivate: true })).toEqual({ allowed: true, address: "127.0.0.1", family: 4 });
    // IPv4-compatible stays IPv4-compatible (ipaddr.js alone would make it IPv4-mapped, another address).
    expect(judgeAddress("::8.8.8.8", { allowPrivate: false })).toEqual({ allowed: true, address: "::808:808", family: 6 });
    expect(judgeAddress("2606:4700:0:0:0:0:0:1111", { allowPrivate: false })).toEqual({ allowed: true, address: "2606:4700::1111", family: 6 });
  });

  test("what is not an address in standard notation is refused, shorthand included (parsers disagree on it)", () => {
    for (const text of ["example.com", "", "1.2.3.4.5", "::g", "127.1", "0x7f000001", "2130706433", "010.0.0.1"]) {
      expect(judgeAddress(text, { allowPrivate: true }).allowed).toBe(false);
    }
  });
});

/** A lookup that answers `addresses` and records each host it was asked for. */
function lookupAnswering(...addresses: string[]) {
  const asked: string[] = [];
  const lookup = async (host: string): Promise<ResolvedAddress[]> => {
    asked.push(host);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { lookup, asked };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WebhookTargetRefused);
  return (error as WebhookTargetRefused).reason;
}

describe("resolveWebhookTarget", () => {
  test("an IP literal is judged as it is, not looked up", async () => {
    const { lookup, asked } = lookupAnswering("8.8.8.8");
    expect(await refusal(resolveWebhookTarget("http://127.0.0.1:8080/hook", { allowPrivate: false, lookup }))).toBe("loopback (127.0.0.0/8)");
    expect(await refusal(resolveWebhookTarget("http://[::1]/hook", { allowPrivate: false, lookup }))).toBe("loopback (::1/128)");
    expect(await refusal(resolveWebhookTarget("http://[::ffff:10.0.0.1]/", { allowPrivate: false, lookup }))).toContain("private (10.0.0.0/8)");
    // The URL parser reads 2130706433 as 127.0.0.1: the guard sees what the connection would.
    expect(await refusal(resolveWebhookTarget("http://2130706433/", { allowPrivate: false, lookup }))).toBe("loopback (127.0.0.0/8)");
    const target = await resolveWebhookTarget("http://127.0.0.1:8080/hook", { allowPrivate: true, lookup });
    expect(target).toMatchObject({ host: "127.0.0.1", address: "127.0.0.1", family: 4 });
    expect(asked).toEqual([]);
  });

  test("a name that resolves to loopback is refused (localhost, the system resolver)", async () => {
    const reason = await refusal(resolveWebhookTarget("http://localhost:9/hook", { allowPrivate: false }));
    expect(reason).toMatch(/^localhost resolves to (127\.0\.0\.1|::1): loopback/);
    const target = await resolveWebhookTarget("http://localhost:9/hook", { allowPrivate: true });
    expect(["127.0.0.1", "::1"]).toContain(target.address);
    expect(target.host).toBe("localhost");
  });

  test.each([
    ["10.1.2.3", "private (10.0.0.0/8)"],
    ["169.254.169.254", "cloud metadata (169.254.169.254)"],
    ["172.16.0.1", "private (172.16.0.0/12)"],
    ["192.168.1.1", "private (192.168.0.0/16)"],
    ["fd12::1", "private (unique local) (fc00::/7)"],
    ["::ffff:10.0.0.1", "IPv4-mapped 10.0.0.1: private (10.0.0.0/8)"],
  ])("a name that resolves to %s is refused", async (address, reason) => {
    const { lookup, asked } = lookupAnswering(address);
    expect(await refusal(resolveWebhookTarget("https://hooks.example.com/in", { allowPrivate: false, lookup }))).toBe(`hooks.example.com resolves to ${address}: ${reason}`);
    expect(asked).toEqual(["hooks.example.com"]);
  });

  test("one refused address among public ones refuses the name", async () => {
    const { lookup } = lookupAnswering("8.8.8.8", "2606:4700::1111", "10.0.0.7");
    expect(await refusal(resolveWebhookTarget("https://hooks.example.com/", { allowPrivate: false, lookup }))).toContain("10.0.0.7: private");
  });

  test("metadata behind a name is refused with the allowance too", async () => {
    const { lookup } = lookupAnswering("127.0.0.1", "169.254.169.254");
    expect(await refusal(resolveWebhookTarget("http://receiver.lan/", { allowPrivate: true, lookup }))).toContain("cloud metadata");
  });

  test("a public name gives its first address, the URL's host kept for Host and SNI", async () => {
    const { lookup } = lookupAnswering("2606:4700::1111", "1.1.1.1");
    const target = await resolveWebhookTarget("https://hooks.example.com:8443/in?x=1", { allowPrivate: false, lookup });
    expect(target).toMatchObject({ host: "hooks.example.com", address: "2606:4700::1111", family: 6 });
    expect(target.url.href).toBe("https://hooks.example.com:8443/in?x=1");
  });

  test.each([
    ["not a url", "not a valid URL"],
    ["ftp://hooks.example.com/", "scheme ftp: (only http and https)"],
    ["file:///etc/passwd", "scheme file: (only http and https)"],
    ["https://user:secret@hooks.example.com/", "credentials in the URL"],
    ["https://user@hooks.example.com/", "credentials in the URL"],
  ])("%s is refused before any lookup", async (url, reason) => {
    const { lookup, asked } = lookupAnswering("8.8.8.8");
    expect(await refusal(resolveWebhookTarget(url, { allowPrivate: true, lookup }))).toBe(reason);
    expect(asked).toEqual([]);
  });

  test("a lookup that fails is not a refusal: its error comes through (the attempt can be retried)", async () => {
    const lookup = async (): Promise<ResolvedAddress[]> => {
      throw Object.assign(new Error("getaddrinfo ENOTFOUND nowhere.example"), { code: "ENOTFOUND" });
    };
    const error = await resolveWebhookTarget("https://nowhere.example/", { allowPrivate: false, lookup }).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(WebhookTargetRefused);
    expect((error as { code?: string }).code).toBe("ENOTFOUND");
  });

  test("a refusal is an invalid_request CkgError carrying its reason", async () => {
    const error = await resolveWebhookTarget("http://10.0.0.1/", { allowPrivate: false }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WebhookTargetRefused);
    expect(error).toMatchObject({ code: "invalid_request", reason: "private (10.0.0.0/8)", details: { field: "url", reason: "private (10.0.0.0/8)" } });
  });
});
