/**
 * A data provider's HTTP API served on localhost from fixtures in its real response shapes: the
 * one fake the tests allow (a third party we cannot reach). Faults are scripted per path: each
 * request to the path takes the next fault until none is left, then the fixture answers.
 */
import type { Server } from "bun";

export type Fault =
  | { kind: "429"; retryAfter?: string }
  | { kind: "500" }
  | { kind: "hang"; ms: number }
  | { kind: "truncated" }
  | { kind: "malformed" }
  /** Any refusal as a provider words it: its status, body and headers (a 402 with an upgrade message). */
  | { kind: "refuse"; status: number; body: string; headers?: Record<string, string> };

/** Answers a request from fixtures: a JSON value, a Response, or undefined for 404. */
export type Route = (url: URL, request: Request, body: unknown) => unknown | Response | undefined | Promise<unknown>;

export interface FakeProvider {
  url: string;
  /** Requests seen, as "METHOD /path?query" (the tests assert what was and was not asked). */
  requests: string[];
  /** Scripts faults for a path (exact pathname, or "*" for any). */
  fail(path: string, ...faults: Fault[]): void;
  stop(): void;
}

export function startFakeProvider(route: Route): FakeProvider {
  const faults = new Map<string, Fault[]>();
  const requests: string[] = [];
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    async fetch(request) {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}${url.search}`);
      const queue = faults.get(url.pathname)?.length ? faults.get(url.pathname)! : faults.get("*");
      const fault = queue?.shift();
      if (fault?.kind === "429") {
        return new Response(JSON.stringify({ status: { error_code: 429, error_message: "rate limited" } }), {
          status: 429,
          headers: { "retry-after": fault.retryAfter ?? "1", "content-type": "application/json" },
        });
      }
      if (fault?.kind === "500") return new Response("upstream error", { status: 500 });
      if (fault?.kind === "refuse") return new Response(fault.body, { status: fault.status, headers: { "content-type": "application/json", ...fault.headers } });
      if (fault?.kind === "hang") await Bun.sleep(fault.ms);
      const body = request.method === "POST" ? await request.json().catch(() => undefined) : undefined;
      const answer = await route(url, request, body);
      if (answer === undefined) return Response.json({ message: "not found" }, { status: 404 });
      if (answer instanceof Response) return answer;
      const text = JSON.stringify(answer);
      if (fault?.kind === "truncated") return new Response(text.slice(0, Math.max(1, Math.floor(text.length / 2))), { headers: { "content-type": "application/json" } });
      if (fault?.kind === "malformed") return new Response(`{"data": [1, 2,, }`, { headers: { "content-type": "application/json" } });
      return new Response(text, { headers: { "content-type": "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    fail(path, ...list) {
      faults.set(path, [...(faults.get(path) ?? []), ...list]);
    },
    stop() {
      server.stop(true);
    },
  };
}
