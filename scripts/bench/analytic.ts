/**
 * Analytic SPARQL against Virtuoso, query by query:
 *
 *   bun scripts/bench/analytic.ts --data-dir /tmp/ckg-full [--before-data-dir DIR] [--runs 10]
 *
 * The queries are the five shapes the targets were set on, and the generated held-out set
 * (test/graph/analytic-heldout.ts, drawn from the ontology and this snapshot). For each: ckg's p50
 * over HTTP (DuckDB where the translator takes it, else the embedded store), Virtuoso 7's p50
 * loaded with the same snapshot's N-Quads (behind a ckg server, as scale.ts measures it, so both
 * pay the same HTTP and answer shaping), their ratio, and the floor: the same SQL by DuckDB alone,
 * in-process on the snapshot's query database. Then the worst and median ratio, and point queries
 * (p50, and req/s at --clients) on this data directory and, with --before-data-dir, on one built
 * by the previous release: the same run, the same machine.
 * No assertion: a benchmark prints figures.
 */
import { rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { type DataDir, dataDir } from "../../src/store/data-dir.ts";
import { heldOut } from "../../test/graph/analytic-heldout.ts";
import { openFloor } from "./analytic-floor.ts";
import { onVirtuoso, sampleEntities, serve } from "./ckg-stores.ts";
import { runLoad } from "./closed-loop.ts";
import { median, percentile } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full" },
    "before-data-dir": { type: "string" },
    runs: { type: "string", default: "10" },
    clients: { type: "string", default: "32" },
    seconds: { type: "string", default: "15" },
    buffers: { type: "string", default: "250000" },
  },
});
const runs = Number(values.runs);
const clients = Number(values.clients);

/** The five query shapes the analytic targets were set on, written on this ontology's predicates. */
const ISSUE_SHAPES = [
  { name: "issue: count per object of one predicate, top 20", sparql: "SELECT ?o (COUNT(*) AS ?n) WHERE { ?s ckg:deployedOn ?o } GROUP BY ?o ORDER BY DESC(?n) LIMIT 20" },
  { name: "issue: count per class over rdf:type", sparql: "SELECT ?class (COUNT(?s) AS ?n) WHERE { ?s a ?class } GROUP BY ?class ORDER BY DESC(?n)" },
  { name: "issue: count per object of a second predicate, one class, top 20", sparql: "SELECT ?chain (COUNT(?p) AS ?n) WHERE { ?p a ckg:Protocol ; ckg:deployedOn ?chain } GROUP BY ?chain ORDER BY DESC(?n) LIMIT 20" },
  { name: "issue: count per object of a predicate, top 10", sparql: "SELECT ?o (COUNT(*) AS ?n) WHERE { ?s ckg:investedIn ?o } GROUP BY ?o ORDER BY DESC(?n) LIMIT 10" },
  { name: "issue: SUM and COUNT by a second predicate's literal", sparql: "SELECT ?stage (SUM(?usd) AS ?total) (COUNT(?r) AS ?n) WHERE { ?r ckg:roundStage ?stage ; ckg:amountUsd ?usd } GROUP BY ?stage ORDER BY DESC(?total)" },
];

async function post(url: string, body: unknown): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${url}/api/sparql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`/api/sparql answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`);
  return performance.now() - started;
}

const f = (ms: number) => ms.toFixed(1).padStart(8);

/** Point queries on one data directory: p50 alone, then req/s at `clients`. */
async function pointQueries(label: string, source: DataDir): Promise<string> {
  const copy = workingCopy(source, "ckg-analytic-point-");
  try {
    const entities = await sampleEntities(copy.dir, copy.id, 500);
    const server = await serve(copy.dir);
    try {
      const point = (i: number) => ({ query: `SELECT ?p ?o WHERE { <${entities[i % entities.length]}> ?p ?o } LIMIT 200` });
      const alone: number[] = [];
      for (let i = 0; i < runs * 20; i++) alone.push(await post(server.url, point(i)));
      const load = await runLoad({ clients, seconds: Number(values.seconds), warmupSeconds: 3, request: (i) => post(server.url, point(i)).then(() => undefined) });
      return `${label}: point query p50 ${percentile(alone, 50).toFixed(2)} ms alone; ${clients} clients ${load.rps.toFixed(0)} req/s, p50 ${load.p50.toFixed(1)} ms, ${load.errors} errors`;
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(copy.root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const source = dataDir(values["data-dir"]!);
  const copy = workingCopy(source, "ckg-analytic-bench-");
  const lines: string[] = [];
  try {
    // The floor first, alone on the machine (the server then opens the same database).
    const floor = await openFloor(copy.dir, copy.id);
    const queries = [...ISSUE_SHAPES, ...heldOut(floor.profile, floor.classes)];
    const floors = new Map<string, number | undefined>();
    for (const q of queries) {
      const sql = floor.sql(q.sparql);
      floors.set(q.name, sql === undefined ? undefined : await floor.p50(sql, runs));
    }
    await floor.close();
    const ckg = await serve(copy.dir);
    try {
      await onVirtuoso(copy.dir, Number(values.buffers), (s) => console.log(`Virtuoso bulk load: ${s.toFixed(1)} s`), async (endpoint) => {
        const virtuoso = await serve(copy.dir, { CKG_SPARQL_URL: endpoint, CKG_SPARQL_ANALYTIC: "false" });
        try {
          const ratios: number[] = [];
          const duckRatios: number[] = [];
          console.log(`${"query".padEnd(64)} engine      ckg  Virtuoso    ratio    floor`);
          for (const q of queries) {
            const a: number[] = [];
            const b: number[] = [];
            await post(ckg.url, { query: q.sparql }); // warm both once
            await post(virtuoso.url, { query: q.sparql });
            for (let i = 0; i < runs; i++) {
              a.push(await post(ckg.url, { query: q.sparql }));
              b.push(await post(virtuoso.url, { query: q.sparql }));
            }
            const ratio = percentile(a, 50) / percentile(b, 50);
            const fl = floors.get(q.name);
            ratios.push(ratio);
            if (fl !== undefined) duckRatios.push(ratio);
            const line = `${q.name.slice(0, 64).padEnd(64)} ${fl === undefined ? "oxigraph" : "duckdb  "} ${f(percentile(a, 50))} ${f(percentile(b, 50))} ${("x" + ratio.toFixed(2)).padStart(8)} ${fl === undefined ? "       -" : f(fl)}`;
            lines.push(line);
            console.log(line);
          }
          const summary = (label: string, list: number[]) =>
            `${label}: ${list.length} queries, median x${median(list).toFixed(2)}, worst x${Math.max(...list).toFixed(2)}, at or under x1: ${list.filter((r) => r <= 1).length}`;
          lines.push(summary("every query", ratios), summary("answered by DuckDB", duckRatios));
        } finally {
          await virtuoso.stop();
        }
      });
    } finally {
      await ckg.stop();
    }
  } finally {
    rmSync(copy.root, { recursive: true, force: true });
  }
  lines.push(await pointQueries("this data directory", source));
  if (values["before-data-dir"]) lines.push(await pointQueries("before (previous release's build)", dataDir(values["before-data-dir"])));
  console.log(`\nanalytic benchmark (p50 over HTTP, ms; ratio = ckg / Virtuoso)\n${lines.join("\n")}`);
}

await main();
