/**
 * @module mcp/origin
 * DNS-rebinding protection for /mcp, as the MCP specification asks of Streamable HTTP servers: a
 * web page can make a browser send requests to a server on the visitor's machine under the page's
 * own host name, so /mcp answers only a `Host` that names this server and an `Origin` (when a
 * browser sends one) of this server. This server's names: the host of the configured base URL,
 * the listen address with its port, and `localhost` / 127.0.0.1 / [::1] when it listens on
 * loopback. Listening on every interface without a base URL, any Host is accepted (the public
 * names are unknown); an Origin must then still match the Host it came with.
 */
import { CkgError } from "../errors.ts";

export interface OriginRules {
  /** The listen address (`host` setting). */
  host: string;
  /** The server's base URL: the configured one, or the one derived from the listen address and port. */
  baseUrl: string;
  /** Whether the base URL was configured (a public name) rather than derived. */
  configured: boolean;
  /** The port the server listens on (the derived base URL's when the setting is 0). */
  port: number;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const EVERY_INTERFACE = new Set(["0.0.0.0", "::", "[::]"]);

/** The Host values this server answers to; undefined when any is accepted. */
export function allowedHosts(rules: OriginRules): Set<string> | undefined {
  if (EVERY_INTERFACE.has(rules.host) && !rules.configured) return undefined;
  const hosts = new Set([new URL(rules.baseUrl).host]);
  if (LOOPBACK.has(rules.host)) for (const name of ["127.0.0.1", "localhost", "[::1]"]) hosts.add(`${name}:${rules.port}`);
  else if (!EVERY_INTERFACE.has(rules.host)) hosts.add(`${rules.host.includes(":") ? `[${rules.host}]` : rules.host}:${rules.port}`);
  return hosts;
}

/** Throws 403 forbidden_origin when the request's Host or Origin is not this server's. */
export function checkOrigin(request: Request, hosts: Set<string> | undefined): void {
  const host = request.headers.get("host") ?? new URL(request.url).host;
  if (hosts && !hosts.has(host.toLowerCase())) {
    throw new CkgError("forbidden_origin", `Host ${host} is not this server's; /mcp answers only ${[...hosts].join(", ")}.`, { details: { host } });
  }
  const origin = request.headers.get("origin");
  if (origin === null) return; // not a browser: nothing to rebind
  let originHost: string;
  try {
    originHost = new URL(origin).host;
  } catch {
    throw new CkgError("forbidden_origin", `Origin ${origin} is not a web origin.`, { details: { origin } });
  }
  if (hosts ? !hosts.has(originHost) : originHost !== host.toLowerCase()) {
    throw new CkgError("forbidden_origin", `Origin ${origin} is not this server's; /mcp takes requests from its own pages only.`, { details: { origin } });
  }
}
