/**
 * SPARQL's graph forms and result formats. Run by hand:
 *   bun scripts/bench/sparql-forms.ts [--data-dir /tmp/ckg-full] [--runs 30] [--buffers 250000]
 * With no snapshot in --data-dir, one is built there first at --scale (`ckg build`), so the small
 * version is
 *   bun scripts/bench/sparql-forms.ts --data-dir /tmp/ckg-forms-small --scale 20000
 *
 * On a working copy of the data, with Debian's Virtuoso 7 loaded from what `ckg export` writes:
 *   1. CONSTRUCT and DESCRIBE over HTTP (GET /sparql, N-Triples), p50/p99 ms, on the embedded store
 *      beside Virtuoso (CKG_SPARQL_URL), each query in turn on both: DESCRIBE of one entity, a
 *      one-entity CONSTRUCT, a CONSTRUCT over one predicate (whole graph), and one that reaches the
 *      10,000-triple cap; Turtle and JSON-LD beside N-Triples for the DESCRIBE;
 *   2. a 10,000-row SELECT answer written as SPARQL XML beside JSON (CSV, TSV too): the encoders
 *      alone in this process (api/sparql-formats.ts), then the whole request over HTTP.
 * No assertion: a benchmark prints figures.
 */
import { existsSync, rmSync } from "node:fs";
import { parseArgs } from "node:util";
import { RESULT_FORMATS, type ResultFormat, writeResults } from "../../src/api/sparql-formats.ts";
import type { SparqlAnswer } from "../../src/graph/sparql.ts";
import { selfCommand } from "../../src/runtime.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { onVirtuoso, sampleEntities, serve } from "./ckg-stores.ts";
import { percentile, printTable } from "./stats.ts";
import { workingCopy } from "./working-copy.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full" },
    scale: { type: "string", default: "20000" },
    runs: { type: "string", default: "30" },
    buffers: { type: "string", default: "250000" },
  },
});
const runs = Number(values.runs);
const rows: [string, string][] = [];
const note = (name: string, value: string) => {
  rows.push([name, value]);
  console.log(`${name}: ${value}`);
};
const ms = (samples: number[]) => `p50 ${percentile(samples, 50).toFixed(2)} / p99 ${percentile(samples, 99).toFixed(1)} ms`;

/** One GET /sparql: its time and what it said of the answer (triples or bytes, cut or not). */
async function get(url: string, query: string, accept: string): Promise<{ ms: number; bytes: number; truncated: boolean }> {
  const started = performance.now();
  const response = await fetch(`${url}/sparql?${new URLSearchParams({ query })}`, { headers: { accept } });
  const bytes = (await response.arrayBuffer()).byteLength;
  if (response.status !== 200) throw new Error(`${query} answered ${response.status}`);
  return { ms: performance.now() - started, bytes, truncated: response.headers.get("x-ckg-truncated") === "true" };
}

const source = dataDir(values["data-dir"]!);
if (!existsSync(source.current) || !currentSnapshotId(source)) {
  console.log(`building a snapshot at scale ${values.scale} in ${source.root}`);
  const build = Bun.spawn([...selfCommand("build", "--data-dir", source.root, "--scale", values.scale!)], { stdout: "ignore", stderr: "inherit" });
  if ((await build.exited) !== 0) throw new Error("ckg build failed");
}

const copy = workingCopy(source, "ckg-forms-bench-");
try {
  const label = `scale ${readManifest(snapshotPath(copy.dir, copy.id)).build.scale}`;
  const entities = await sampleEntities(copy.dir, copy.id, 200); // relative IRIs: <token/usd-coin>
  const embedded = await serve(copy.dir);
  try {
    await onVirtuoso(copy.dir, Number(values.buffers), (s) => note(`${label}: Virtuoso bulk load of ckg export (s)`, s.toFixed(1)), async (endpoint) => {
      const remote = await serve(copy.dir, { CKG_SPARQL_URL: endpoint });
      try {
        const stores = [
          { name: "embedded", url: embedded.url },
          { name: "Virtuoso", url: remote.url },
        ];
        const forms: { name: string; query: (i: number) => string; accept?: string }[] = [
          { name: "DESCRIBE one entity", query: (i) => `DESCRIBE <${entities[i % entities.length]}>` },
          { name: "DESCRIBE one entity, Turtle", query: (i) => `DESCRIBE <${entities[i % entities.length]}>`, accept: "text/turtle" },
          { name: "DESCRIBE one entity, JSON-LD", query: (i) => `DESCRIBE <${entities[i % entities.length]}>`, accept: "application/ld+json" },
          { name: "CONSTRUCT one entity", query: (i) => `CONSTRUCT { <${entities[i % entities.length]}> ?p ?o } WHERE { <${entities[i % entities.length]}> ?p ?o }` },
          { name: "CONSTRUCT investedIn (whole graph)", query: () => "CONSTRUCT { ?i ckg:investedIn ?x } WHERE { ?i ckg:investedIn ?x }" },
          { name: "CONSTRUCT everything (cut at 10,000)", query: () => "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }" },
        ];
        for (const form of forms) {
          const samples = new Map<string, { ms: number[]; bytes: number; truncated: boolean }>();
          for (let i = 0; i < runs; i++) {
            for (const store of stores) {
              const answer = await get(store.url, form.query(i), form.accept ?? "application/n-triples");
              const seen = samples.get(store.name) ?? { ms: [], bytes: 0, truncated: false };
              seen.ms.push(answer.ms);
              seen.bytes = Math.max(seen.bytes, answer.bytes);
              seen.truncated ||= answer.truncated;
              samples.set(store.name, seen);
            }
          }
          for (const [store, seen] of samples) note(`${label}: ${form.name}, ${store}`, `${ms(seen.ms)} (largest ${(seen.bytes / 1024).toFixed(0)} KiB${seen.truncated ? ", cut" : ""})`);
        }
      } finally {
        await remote.stop();
      }
    });

    // 2: a 10,000-row answer in each result format.
    const query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 10000";
    const response = await fetch(`${embedded.url}/api/sparql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, typed: true }) });
    const answer = (await response.json()) as SparqlAnswer;
    note("10,000-row answer: rows", String(answer.count));
    for (const format of Object.keys(RESULT_FORMATS) as ResultFormat[]) {
      const samples: number[] = [];
      let bytes = 0;
      for (let i = 0; i < runs + 5; i++) {
        const started = performance.now();
        bytes = writeResults(answer, format).body.length;
        if (i >= 5) samples.push(performance.now() - started); // the first runs warm the JIT
      }
      note(`10,000 rows, ${format} encoder alone`, `${ms(samples)} (${(bytes / 1024).toFixed(0)} KiB)`);
    }
    for (const format of ["json", "xml"] as const) {
      const samples: number[] = [];
      for (let i = 0; i < runs; i++) samples.push((await get(embedded.url, query, RESULT_FORMATS[format])).ms);
      note(`10,000 rows, ${format} over HTTP (query and all)`, ms(samples));
    }
  } finally {
    await embedded.stop();
  }
} finally {
  rmSync(copy.root, { recursive: true, force: true });
}
printTable("SPARQL graph forms and result formats (p50 / p99 over HTTP unless said)", rows);
