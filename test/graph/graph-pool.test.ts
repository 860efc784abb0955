import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isAlive } from "../../src/runtime.ts";
import { type Running, json, startServices } from "../support/fixture.ts";

const RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }";

describe("graph query time limit", () => {
  let run: Running;
  beforeAll(async () => {
    run = await startServices({ query_timeout_ms: 1000 });
  });
  afterAll(() => run.close());

  test("a runaway query is stopped with 504 and the service keeps answering", async () => {
    const before = run.services.graph.status().replicas[0]!.pid;
    const started = performance.now();
    const { status, body } = await json(await run.request("POST", "/api/sparql", { query: RUNAWAY }));
    const elapsed = performance.now() - started;
    expect(status).toBe(504);
    expect(body.error.code).toBe("query_timeout");
    expect(elapsed).toBeLessThan(5000);

    // Its process was killed (the CPU is free again) and a fresh one serves the next query.
    for (let i = 0; i < 50 && isAlive(before); i++) await Bun.sleep(20);
    expect(isAlive(before)).toBe(false);
    let answer = await json(await run.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" }));
    for (let i = 0; i < 100 && answer.status === 503; i++) {
      expect(answer.headers.get("retry-after")).not.toBeNull();
      await Bun.sleep(100);
      answer = await json(await run.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" }));
    }
    expect(answer.status).toBe(200);
    expect(answer.body.boolean).toBe(true);
    expect(run.services.graph.status().timeouts).toBe(1);
  });

  test("non-graph routes answer while a query runs", async () => {
    const slow = run.request("POST", "/api/sparql", { query: RUNAWAY });
    const started = performance.now();
    const schema = await run.request("GET", "/api/schema");
    expect(schema.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);
    expect((await slow).status).toBe(504);
  });

  test("a crashed graph process is restarted", async () => {
    await waitReady(run);
    const pid = run.services.graph.status().replicas[0]!.pid;
    process.kill(pid, "SIGKILL");
    // The exit is noticed asynchronously: wait for a replica that is not the killed one, then for it to load.
    const deadline = performance.now() + 5000;
    while (run.services.graph.status().replicas[0]?.pid === pid && performance.now() < deadline) await Bun.sleep(20);
    await waitReady(run, 5000);
    expect(run.services.graph.status().replicas[0]!.pid).not.toBe(pid);
    expect((await run.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" })).status).toBe(200);
  });
});

describe("the graph process killed under load", () => {
  let run: Running;
  beforeAll(async () => {
    // No rate limit: 12 in-process clients pass 6,000 requests a minute now that explore needs no graph query.
    run = await startServices({ rate_limit_per_minute: 0 });
  });
  afterAll(() => run.close());

  test("requests succeed or get 503 (none hangs, none fails otherwise) and the process comes back", async () => {
    await waitReady(run);
    const statuses = new Map<number, number>();
    let stop = false;
    const bodies: [string, unknown][] = [
      ["/api/sparql", { query: "SELECT ?s ?n WHERE { ?s <https://schema.org/name> ?n } LIMIT 200" }],
      ["/api/explore", { entity_name: "Ethereum" }],
      ["/api/search", { query: "ethereum" }],
    ];
    const clients = Array.from({ length: 12 }, async (_, i) => {
      for (let n = i; !stop; n++) {
        const [path, body] = bodies[n % bodies.length]!;
        const started = performance.now();
        const response = await run.request("POST", path, body);
        await response.arrayBuffer();
        expect(performance.now() - started).toBeLessThan(15_000);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        // In-process clients: a 503 answers without I/O, so yield as a client on a socket would.
        await Bun.sleep(1);
      }
    });
    await Bun.sleep(500);
    const pid = run.services.graph.status().replicas[0]!.pid;
    process.kill(pid, "SIGKILL");
    const deadline = performance.now() + 10_000;
    while (run.services.graph.status().replicas[0]?.pid === pid && performance.now() < deadline) await Bun.sleep(20);
    await waitReady(run, 10_000);
    await Bun.sleep(300);
    stop = true;
    await Promise.all(clients);
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses.get(200)).toBeGreaterThan(0);
    expect(run.services.graph.status().replicas[0]!.pid).not.toBe(pid);
    expect((await run.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" })).status).toBe(200);
  }, 60_000);
});

describe("while the graph loads", () => {
  test("SPARQL answers 503 not_ready with Retry-After; explore and the other routes answer", async () => {
    const { Services } = await import("../../src/server/services.ts");
    const { silentLogger } = await import("../../src/log.ts");
    const { copyOfFixture, testConfig } = await import("../support/fixture.ts");
    const { createServer } = await import("../../src/server/app.ts");
    const { currentSnapshotId, dataDir } = await import("../../src/store/data-dir.ts");
    const dir = await copyOfFixture();
    // The real graph process, started a second late so the loading window is wide enough to observe.
    const { selfCommand } = await import("../../src/runtime.ts");
    const delayed = ["sh", "-c", 'sleep 1; exec "$@"', "sh", ...selfCommand("__graph-worker")];
    const services = await Services.open(testConfig({ data_dir: dir }), silentLogger, { graphCommand: delayed });
    const app = createServer(services, { baseUrl: "http://127.0.0.1" });
    const call = (method: string, path: string, body?: unknown) =>
      app.handle(new Request(`http://127.0.0.1${path}`, { method, body: body ? JSON.stringify(body) : undefined })).then(json);
    try {
      expect((await call("GET", "/api/schema")).status).toBe(503);
      expect((await call("GET", "/readyz")).status).toBe(503);
      const activating = services.activate(currentSnapshotId(dataDir(dir))!);
      while (!services.live) await Bun.sleep(1);
      const sparql = await call("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" });
      expect(sparql.status).toBe(503);
      expect(sparql.body.error.code).toBe("not_ready");
      expect(Number(sparql.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Explore reads the fact index, not the graph store: it answers before the graph is loaded.
      expect((await call("POST", "/api/explore", { entity_name: "Ethereum" })).status).toBe(200);
      expect((await call("GET", "/api/schema")).status).toBe(200);
      expect((await call("GET", "/healthz")).status).toBe(200);
      await activating;
      expect((await call("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" })).status).toBe(200);
      expect((await call("GET", "/readyz")).status).toBe(200);
    } finally {
      await services.close();
    }
  });
});


async function waitReady(run: Running, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!run.services.graph.ready) {
    if (performance.now() > deadline) throw new Error("graph did not become ready");
    await Bun.sleep(20);
  }
}
