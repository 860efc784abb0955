import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { selfCommand } from "../../src/runtime.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";

describe("ckg serve (a real process on a real port)", () => {
  test("on an empty data directory: answers health at once, builds the default dataset, becomes ready", async () => {
    const dir = join(tempDir("ckg-serve-"), "fresh");
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0", "--scale", "5000"));
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const early = await fetch(`${server.url}/readyz`);
      if (early.status === 503) expect(["building", "loading"]).toContain(((await early.json()) as any).status);
      await server.waitReady(60_000);
      const schema = (await (await fetch(`${server.url}/api/schema`)).json()) as any;
      expect(schema.provenance.synthetic).toBe(true);
      expect(schema.provenance.sources.some((s: { id: string; synthetic: boolean }) => s.id === "synthetic-demo" && s.synthetic)).toBe(true);
    } finally {
      await server.stop();
    }
  });

  test("logs one JSON line per request with id, route, status and time", async () => {
    const dir = await copyOfFixture();
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"));
    try {
      await server.waitReady(30_000);
      await fetch(`${server.url}/api/changes?limit=1`, { headers: { "x-request-id": "log-check-1" } });
      // Log lines are written in batches (at most 250 ms late).
      for (let i = 0; i < 20 && !server.lines().some((l) => l.req_id === "log-check-1"); i++) await Bun.sleep(50);
      const line = server.lines().find((l) => l.req_id === "log-check-1");
      expect(line).toMatchObject({ msg: "request", method: "GET", route: "/api/changes", status: 200 });
      expect(typeof line!.ms).toBe("number");
      expect(typeof line!.time).toBe("string");
    } finally {
      await server.stop();
    }
  });

  test("SIGTERM lets the in-flight request finish, then exits 0", async () => {
    const dir = await copyOfFixture();
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0", "--query-timeout-ms", "1500"));
    await server.waitReady(30_000);
    const slow = fetch(`${server.url}/api/sparql`, {
      method: "POST",
      body: JSON.stringify({ query: "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }" }),
    });
    await Bun.sleep(300);
    server.process.kill("SIGTERM");
    const answer = await slow;
    expect(answer.status).toBe(504);
    expect(((await answer.json()) as any).error.code).toBe("query_timeout");
    expect(await server.process.exited).toBe(0);
    expect(server.lines().some((l) => l.msg === "stopped")).toBe(true);
  });
});
