/**
 * Scale benchmark (the full data beside Virtuoso, replicas, and past the embedded store's
 * ceiling). Run by hand:
 *   bun scripts/bench/scale.ts [--data-dir /tmp/ckg-full] [--big-data-dir DIR [--big-only]] [--runs 30] [--clients 16] [--seconds 20]
 *
 * On a working copy of the data (snapshot hard-linked), with Debian's Virtuoso 7 loaded from what
 * `ckg export` writes (test/support/virtuoso.ts):
 *   1. SPARQL over HTTP, p50/p99 ms and req/s at `clients`: ckg on its embedded store (analytic
 *      SELECTs on DuckDB), the same with every query on Oxigraph (CKG_SPARQL_ANALYTIC=false: the
 *      figure before analytic SPARQL ran on DuckDB) and ckg on Virtuoso (CKG_SPARQL_URL, also with
 *      every query sent to it), a point set (one entity's facts) and an analytic set (counts and
 *      groupings over the whole graph), each query in turn on each, with each analytic p50's ratio
 *      to Virtuoso's and the queries each engine answered;
 *   2. the analytic set again as SQL over the graph tables (POST /api/timeseries, same server);
 *   3. one vs two ckg replicas on the same data, mixed routes (search, explore, SPARQL, SQL) from one
 *      closed-loop client spreading requests over them (the machine's 2 cores bound the gain);
 *   4. with --big-data-dir (a build past the embedded store's WebAssembly ceiling, e.g.
 *      `ckg build --scale 2600000`): whether the embedded store loads it, and the same SPARQL sets
 *      through Virtuoso (--big-only: this part alone).
 * No assertion: a benchmark prints figures.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { readManifest } from "../../src/store/manifest.ts";
import { type DataDir, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { runLoad } from "./closed-loop.ts";
import { sampleEntities, serve, onVirtuoso } from "./ckg-stores.ts";
import { processTree } from "./processes.ts";
import { percentile, printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full" },
    "big-data-dir": { type: "string" },
    runs: { type: "string", default: "30" },
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "20" },
    buffers: { type: "string", default: "250000" },
    "big-only": { type: "boolean", default: false },
  },
});
const runs = Number(values.runs);
const clients = Number(values.clients);
const seconds = Number(values.seconds);
const rows: [string, string][] = [];
const note = (name: string, value: string) => {
  rows.push([name, value]);
  console.log(`${name}: ${value}`);
};
const ms = (samples: number[]) => `p50 ${percentile(samples, 50).toFixed(2)} / p99 ${percentile(samples, 99).toFixed(1)} ms`;

const ANALYTIC: { name: string; sparql: string; sql: string }[] = [
  {
    name: "entities by class",
    sparql: "SELECT ?class (COUNT(?s) AS ?n) WHERE { ?s a ?class } GROUP BY ?class ORDER BY DESC(?n)",
    sql: "SELECT object AS class, count(*) AS n FROM graph_facts WHERE predicate = 'rdf:type' GROUP BY object ORDER BY n DESC",
  },
  {
    name: "predicate histogram",
    sparql: "SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n)",
    sql: "SELECT predicate, count(*) AS n FROM graph_facts GROUP BY predicate ORDER BY n DESC",
  },
  {
    name: "investors by portfolio size, top 20",
    sparql: "SELECT ?investor (COUNT(?x) AS ?n) WHERE { ?investor ckg:investedIn ?x } GROUP BY ?investor ORDER BY DESC(?n) LIMIT 20",
    sql: "SELECT subject_id, count(*) AS n FROM graph_facts WHERE predicate = 'investedIn' GROUP BY subject_id ORDER BY n DESC LIMIT 20",
  },
  {
    name: "protocols per chain",
    sparql: "SELECT ?chain (COUNT(?p) AS ?n) WHERE { ?p a ckg:Protocol ; ckg:deployedOn ?chain } GROUP BY ?chain ORDER BY DESC(?n)",
    sql: `SELECT f.object AS chain, count(*) AS n FROM graph_facts f JOIN graph_entities e ON e.id = f.subject_id
          WHERE f.predicate = 'deployedOn' AND e.type = 'Protocol' GROUP BY f.object ORDER BY n DESC`,
  },
];

async function post(url: string, path: string, body: unknown): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return performance.now() - started;
}

/** The point and analytic SPARQL sets on each server in turn; the analytic set as SQL on the first. */
async function compare(label: string, servers: { name: string; url: string }[], entities: string[], sqlOn?: string): Promise<void> {
  const point = (i: number) => ({ query: `SELECT ?p ?o WHERE { <${entities[i % entities.length]}> ?p ?o } LIMIT 200` });
  const samples = new Map<string, number[]>();
  const add = (key: string, t: number) => samples.set(key, [...(samples.get(key) ?? []), t]);
  for (let i = 0; i < runs * 3; i++) for (const s of servers) add(`${s.name} point`, await post(s.url, "/api/sparql", point(i)));
  for (const q of ANALYTIC) {
    for (let i = 0; i < runs; i++) {
      for (const s of servers) add(`${s.name} ${q.name}`, await post(s.url, "/api/sparql", { query: q.sparql }));
      if (sqlOn) add(`SQL ${q.name}`, await post(sqlOn, "/api/timeseries", { sql_query: q.sql }));
    }
  }
  for (const [key, list] of samples) note(`${label}: ${key}`, ms(list));
  // Each analytic query's p50 against the peer's (the last server) in this run, and who answered it.
  const peer = servers.at(-1)!;
  for (const q of ANALYTIC) {
    const p50 = (name: string) => percentile(samples.get(`${name} ${q.name}`) ?? [], 50);
    for (const s of servers.slice(0, -1)) note(`${label}: ${s.name} / ${peer.name} p50, ${q.name}`, `x${(p50(s.name) / p50(peer.name)).toFixed(2)}`);
  }
  for (const s of servers) {
    const engines = await sparqlEngines(s.url);
    note(`${label}: ${s.name}, SPARQL queries by engine`, Object.entries(engines).map(([engine, n]) => `${engine} ${n}`).join(", "));
  }
  for (const s of servers) {
    const load = await runLoad({ clients, seconds, warmupSeconds: 3, request: (i) => post(s.url, "/api/sparql", point(i)).then(() => undefined) });
    note(`${label}: ${s.name} point, ${clients} clients`, `${load.rps.toFixed(0)} req/s, p50 ${load.p50.toFixed(1)} ms, ${load.errors} errors`);
  }
}

/** ckg_sparql_queries_total by engine, from a server's /metrics. */
async function sparqlEngines(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Object.fromEntries([...text.matchAll(/ckg_sparql_queries_total\{engine="(\w+)"\} (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

function withVirtuoso(source: DataDir, label: string, fn: (endpoint: string) => Promise<void>): Promise<void> {
  return onVirtuoso(source, Number(values.buffers), (seconds) => note(`${label}: Virtuoso bulk load of ckg export (s)`, seconds.toFixed(1)), fn);
}

/** 1-3 on one data directory: embedded beside Virtuoso, SQL over the graph tables, one vs two replicas. */
async function storesAndReplicas(source: DataDir): Promise<void> {
  const copy = workingCopy(source, "ckg-scale-bench-");
  try {
    const entities = await sampleEntities(copy.dir, copy.id, 500);
    const label = `scale ${readManifest(snapshotPath(copy.dir, copy.id)).build.scale}`;
    const embedded = await serve(copy.dir);
    try {
      await withVirtuoso(copy.dir, label, async (endpoint) => {
        // The peer answers every query itself, and so does the embedded store alone (the figure before analytic SPARQL on DuckDB).
        const remote = await serve(copy.dir, { CKG_SPARQL_URL: endpoint, CKG_SPARQL_ANALYTIC: "false" });
        const oxigraphOnly = await serve(copy.dir, { CKG_SPARQL_ANALYTIC: "false" });
        try {
          const servers = [
            { name: "embedded", url: embedded.url },
            { name: "embedded, Oxigraph only", url: oxigraphOnly.url },
            { name: "Virtuoso", url: remote.url },
          ];
          await compare(label, servers, entities, embedded.url);
        } finally {
          await oxigraphOnly.stop();
          await remote.stop();
        }
      });
      const mixed = (urls: string[]) => async (i: number) => {
        const url = urls[i % urls.length]!;
        const entity = entities[i % entities.length]!;
        const kind = i % 4;
        if (kind === 0) await post(url, "/api/search", { query: entity.split("/")[1]!.replaceAll("-", " "), limit: 5 });
        else if (kind === 1) await post(url, "/api/explore", { entity_name: `https://ckg.example/id/${entity}` });
        else if (kind === 2) await post(url, "/api/sparql", { query: `SELECT ?p ?o WHERE { <${entity}> ?p ?o } LIMIT 200` });
        else await post(url, "/api/timeseries", { sql_query: `SELECT count(*) FROM graph_facts WHERE subject_id = '${entity}'` });
      };
      const one = await runLoad({ clients, seconds, warmupSeconds: 3, request: mixed([embedded.url]) });
      note(`one replica, mixed routes, ${clients} clients`, `${one.rps.toFixed(0)} req/s, p50 ${one.p50.toFixed(1)} ms, ${one.errors} errors`);
      const second = await serve(copy.dir);
      try {
        const two = await runLoad({ clients, seconds, warmupSeconds: 3, request: mixed([embedded.url, second.url]) });
        note(`two replicas, mixed routes, ${clients} clients`, `${two.rps.toFixed(0)} req/s, p50 ${two.p50.toFixed(1)} ms, ${two.errors} errors (x${(two.rps / one.rps).toFixed(2)})`);
        const rss = [...processTree(embedded.process.pid), ...processTree(second.process.pid)].reduce((sum, p) => sum + p.rssMb, 0);
        note("two replicas, RSS of all their processes (MB)", rss.toFixed(0));
      } finally {
        await second.stop();
      }
    } finally {
      await embedded.stop();
    }
  } finally {
    rmSync(copy.root, { recursive: true, force: true });
  }
}

/** 4: a graph past the embedded store's ceiling: does it load, and Virtuoso serving it. */
async function pastTheCeiling(source: DataDir): Promise<void> {
  const big = workingCopy(source, "ckg-scale-big-");
  try {
    const quads = readManifest(snapshotPath(big.dir, big.id)).counts.quads;
    note("big data: quads", quads.toLocaleString("en"));
    const started = performance.now();
    try {
      const attempt = await serve(big.dir);
      note("big data: embedded store", `loaded in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      await attempt.stop();
    } catch (error) {
      note("big data: embedded store", `did not load: ${(error as Error).message.slice(0, 300)}`);
    }
    const entities = await sampleEntities(big.dir, big.id, 500);
    await withVirtuoso(big.dir, "big data", async (endpoint) => {
      const remote = await serve(big.dir, { CKG_SPARQL_URL: endpoint, CKG_SPARQL_ANALYTIC: "false" });
      try {
        await compare("big data", [{ name: "Virtuoso", url: remote.url }], entities);
        const tree = processTree(remote.process.pid);
        note("big data: ckg on Virtuoso, RSS of its processes (MB)", tree.map((p) => `${p.name} ${p.rssMb.toFixed(0)}`).join(", "));
      } finally {
        await remote.stop();
      }
    });
  } finally {
    rmSync(big.root, { recursive: true, force: true });
  }
}

if (!values["big-only"]) await storesAndReplicas(dataDir(values["data-dir"]!));
if (values["big-data-dir"]) await pastTheCeiling(dataDir(values["big-data-dir"]));
printTable("scale benchmark (p50 / p99 over HTTP; req/s closed loop)", rows);
