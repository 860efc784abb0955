import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "../../src/runtime.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }";

describe("graph query time limit", () => {
  let run: Running;
  beforeAll(async () => {
    // The graph store's own limit: aggregates would otherwise run on DuckDB (graph/analytic, tested there).
    run = await startServices({ query_timeout_ms: 1000, sparql_analytic: false });
  });
  afterAll(() => run.close());

  test("a runaway query is stopped with 504 and the service keeps answering", async () => {
    await waitReady(run);
    const before = run.services.graph.status().replicas[0]!.pid;
    const { status, body } = await json(await run.request("POST", "/api/sparql", { query: RUNAWAY }));
    expect(status).toBe(504);
    expect(body.error.code).toBe("query_timeout");
    expect(body.error.details.timeout_ms).toBe(1000);

    // Its process was killed (the CPU is free again) and a fresh one serves the next query.
    await until(`graph process ${before} to be gone`, 10_000, () => !isAlive(before));
    const answer = await until("a fresh graph process to answer", 30_000, async () => {
      const next = await json(await run.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" }));
      if (next.status !== 503) return next;
      expect(next.headers.get("retry-after")).not.toBeNull(); // while it loads: 503 with Retry-After
      return undefined;
    });
    expect(answer.status).toBe(200);
    expect(answer.body.boolean).toBe(true);
    expect(run.services.graph.status().timeouts).toBe(1);
  });

  test("a runaway CONSTRUCT or DESCRIBE is stopped the same way", async () => {
    for (const query of [`CONSTRUCT { <chain/ethereum> <urn:n> ?n } WHERE { { ${RUNAWAY} } }`, `DESCRIBE ?x WHERE { { ${RUNAWAY} } BIND(<chain/ethereum> AS ?x) }`]) {
      await waitReady(run);
      const before = run.services.graph.status().replicas[0]!.pid;
      const { status, body } = await json(await run.request("POST", "/api/sparql", { query }));
      expect({ query, status, code: body.error?.code }).toEqual({ query, status: 504, code: "query_timeout" });
      // Its process is killed; the next query waits for the fresh one.
      await until(`graph process ${before} to be gone`, 10_000, () => !isAlive(before));
      await until("the killed process to be noticed", 10_000, () => !run.services.graph.status().replicas.some((r) => r.pid === before && r.state === "ready"));
    }
  });

  test("non-graph routes answer while a query runs", async () => {
    await waitReady(run);
    const slow = run.request("POST", "/api/sparql", { query: RUNAWAY });
    let settled = false;
    void slow.then(() => (settled = true));
    await until("the query to run in a graph process", 10_000, () => run.services.graph.status().running === 1);
    const schema = await run.request("GET", "/api/schema");
    expect(schema.status).toBe(200);
    // Answered while the query still ran: before its time limit stopped it.
    expect(run.services.graph.status().running).toBe(1);
    expect(settled).toBe(false);
    expect((await slow).status).toBe(504);
  });

  test("a crashed graph process is restarted", async () => {
    await waitReady(run);
    const pid = run.services.graph.status().replicas[0]!.pid;
    process.kill(pid, "SIGKILL");
    // The exit is noticed asynchronously: wait for a replica that is not the killed one, then for it to load.
    await until(`a replica other than the killed ${pid}`, 10_000, () => run.services.graph.status().replicas.some((r) => r.pid !== pid));
    await waitReady(run);
    expect(run.services.graph.status().replicas.map((r) => r.pid)).not.toContain(pid);
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
    const ok = () => statuses.get(200) ?? 0;
    let sparqlAnswered = 0; // SPARQL's 200s: the graph process answered
    let stop = false;
    let finished = 0;
    const bodies: [string, unknown][] = [
      ["/api/sparql", { query: "SELECT ?s ?n WHERE { ?s <https://schema.org/name> ?n } LIMIT 200" }],
      ["/api/explore", { entity_name: "Ethereum" }],
      ["/api/search", { query: "ethereum" }],
    ];
    const clients = Array.from({ length: 12 }, async (_, i) => {
      for (let n = i; !stop; n++) {
        const [path, body] = bodies[n % bodies.length]!;
        const response = await run.request("POST", path, body);
        await response.arrayBuffer();
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        if (path === "/api/sparql" && response.status === 200) sparqlAnswered++;
        // In-process clients: a 503 answers without I/O, so yield as a client on a socket would.
        await Bun.sleep(1);
      }
      finished++;
    });
    // Under load: the clients are being answered when the process is killed.
    await until("the clients to be answered 50 times", 30_000, () => ok() >= 50, { seen: () => [...statuses] });
    const pid = run.services.graph.status().replicas[0]!.pid;
    process.kill(pid, "SIGKILL");
    await until(`a replica other than the killed ${pid}`, 10_000, () => run.services.graph.status().replicas.some((r) => r.pid !== pid));
    await waitReady(run);
    // The new process answers the load's SPARQL too before the clients stop.
    const before = sparqlAnswered;
    await until("SPARQL answered by the new process", 30_000, () => sparqlAnswered >= before + 10, { seen: () => [...statuses] });
    stop = true;
    // None hangs: every client's last request comes back.
    await until("every client to finish its last request", 30_000, () => finished === clients.length, { seen: () => `${finished} of ${clients.length}` });
    await Promise.all(clients);
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(run.services.graph.status().replicas.map((r) => r.pid)).not.toContain(pid);
    expect((await run.request("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" })).status).toBe(200);
  }, 60_000);
});

describe("while the graph loads", () => {
  test("SPARQL answers 503 not_ready with Retry-After; explore and the other routes answer", async () => {
    const { Supervisor } = await import("../../src/supervisor/supervisor.ts");
    const { silentLogger } = await import("../../src/log.ts");
    const { copyOfFixture, testConfig } = await import("../support/fixture.ts");
    const { createServer } = await import("../../src/supervisor/assemble.ts");
    const { currentSnapshotId, dataDir } = await import("../../src/store/data-dir.ts");
    const { selfCommand } = await import("../../src/runtime.ts");
    const dir = await copyOfFixture();
    // The real graph process, held back until the test opens its gate: the loading window lasts
    // exactly as long as the test needs it.
    const gate = join(tempDir("ckg-gate-"), "open");
    const held = ["sh", "-c", 'while [ ! -e "$0" ]; do sleep 0.05; done; exec "$@"', gate, ...selfCommand("__graph-worker")];
    const services = await Supervisor.open(testConfig({ data_dir: dir }), silentLogger, { graphCommand: held });
    const app = createServer(services, { baseUrl: "http://127.0.0.1" });
    const call = (method: string, path: string, body?: unknown) =>
      app.handle(new Request(`http://127.0.0.1${path}`, { method, body: body ? JSON.stringify(body) : undefined })).then(json);
    try {
      expect((await call("GET", "/api/schema")).status).toBe(503);
      expect((await call("GET", "/readyz")).status).toBe(503);
      const activating = services.activate(currentSnapshotId(dataDir(dir))!);
      await until("the snapshot to go live", 60_000, () => services.live, { every: 1 });
      expect(services.graph.status().phase).toBe("loading");
      const sparql = await call("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" });
      expect(sparql.status).toBe(503);
      expect(sparql.body.error.code).toBe("not_ready");
      expect(Number(sparql.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      // Explore reads the fact index, not the graph store: it answers before the graph is loaded.
      expect((await call("POST", "/api/explore", { entity_name: "Ethereum" })).status).toBe(200);
      expect((await call("GET", "/api/schema")).status).toBe(200);
      expect((await call("GET", "/healthz")).status).toBe(200);
      expect(services.graph.status().phase).toBe("loading"); // all of that while the graph was still loading
      writeFileSync(gate, "");
      await activating;
      expect((await call("POST", "/api/sparql", { query: "ASK { ?s ?p ?o }" })).status).toBe(200);
      expect((await call("GET", "/readyz")).status).toBe(200);
    } finally {
      if (!existsSync(gate)) writeFileSync(gate, ""); // let a held process go, so close() can stop it
      await services.close();
    }
  });
});

async function waitReady(run: Running, ms = 30_000): Promise<void> {
  await until("the graph to be ready", ms, () => run.services.graph.ready, { every: 20, seen: () => run.services.graph.status() });
}
