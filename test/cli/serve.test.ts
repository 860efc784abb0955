import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { selfCommand } from "../../src/runtime.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

describe("ckg serve (a real process on a real port)", () => {
  test("on an empty data directory: listens first, then builds the default dataset, then becomes ready", async () => {
    const dir = join(tempDir("ckg-serve-"), "fresh");
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0", "--scale", "5000"), { CKG_LOG_LEVEL: "info" });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      await server.waitReady(60_000);
      // The order the log gives (its lines are written in batches, up to 250 ms late): listening
      // before the build began, so health answered all along; ready once it was built and loaded.
      const at = (msg: string) => server.lines().findIndex((l) => l.msg === msg);
      await until("the ready line", 10_000, () => at("ready") >= 0, { seen: () => server.lines().map((l) => l.msg) });
      const order = ["listening", "data directory is empty: building the default dataset", "ready"].map(at);
      expect(order.every((i) => i >= 0), JSON.stringify(server.lines().map((l) => l.msg))).toBe(true);
      expect(order).toEqual([...order].sort((a, b) => a - b));
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
      const line = await until("the request's log line", 10_000, () => server.lines().find((l) => l.req_id === "log-check-1"));
      expect(line).toMatchObject({ msg: "request", method: "GET", route: "/api/changes", status: 200 });
      expect(typeof line.ms).toBe("number");
      expect(typeof line.time).toBe("string");
    } finally {
      await server.stop();
    }
  });

  test("SIGTERM lets the in-flight request finish, then exits 0", async () => {
    const dir = await copyOfFixture();
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0", "--query-timeout-ms", "4000"));
    await server.waitReady(30_000);
    const slow = fetch(`${server.url}/api/sparql`, {
      method: "POST",
      // An ASK, never analytic (a COUNT may be answered by DuckDB, not by a graph process, once the
      // snapshot's graph tables are read), whose filter no join can use: the graph walks every triple.
      body: JSON.stringify({ query: "ASK { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f FILTER(STRLEN(STR(?a)) + STRLEN(STR(?c)) + STRLEN(STR(?e)) < 0) }" }),
    });
    let answered = false;
    void slow.then(() => (answered = true));
    // In flight: a graph process is answering it (the metrics say so), and it has no answer yet.
    await until("the query to run in a graph process", 30_000, async () => /^ckg_graph_queries_running 1$/m.test(await (await fetch(`${server.url}/metrics`)).text()));
    expect(answered).toBe(false);
    server.process.kill("SIGTERM");
    const answer = await slow;
    expect(answer.status).toBe(504);
    expect(((await answer.json()) as any).error.code).toBe("query_timeout");
    expect(await server.process.exited).toBe(0);
    expect(server.lines().some((l) => l.msg === "stopped")).toBe(true);
  });
});
