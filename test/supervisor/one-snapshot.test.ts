/**
 * One snapshot per answer, through the server: a published snapshot whose graph differs from the
 * live one and whose other files fail to load is refused whole. Its graph loaded fine, but SPARQL
 * never answers from it: the graph goes live only with the rest of its snapshot.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { appendFileSync, cpSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { newSnapshotId, publishSnapshot, stagingPath } from "../../src/store/data-dir.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { type Running, json, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices({ snapshot_poll_ms: 100 });
});
afterAll(() => run.close());

const MARKER = "SELECT ?id WHERE { GRAPH ?g { <urn:ckg:test:this> <urn:ckg:test:snapshot> ?id } }";
const marked = async () => (await json(await run.request("POST", "/api/sparql", { query: MARKER }))).body;

test("a snapshot with a different graph and a corrupt changes file: refused, and SPARQL keeps answering from the live snapshot", async () => {
  const live = run.services.snapshot();
  const id = newSnapshotId(new Date(Date.now() + 1000));
  const staging = stagingPath(run.services.dir, id);
  cpSync(live.dir, staging, { recursive: true });
  const files = readManifest(staging).files;
  // The new graph says which snapshot it is; the live one says nothing of the kind.
  appendFileSync(join(staging, files.graph), `<urn:ckg:test:this> <urn:ckg:test:snapshot> "${id}" <urn:ckg:test:graph> .\n`);
  // Its changes file is read last, after its graph has loaded: the snapshot is refused then.
  truncateSync(join(staging, files.changes), 64);
  expect((await marked()).count).toBe(0);
  publishSnapshot(run.services.dir, id);

  let seen: unknown;
  const ready = await until(`the server to refuse snapshot ${id}`, 90_000, async () => {
    const body = (await json(await run.request("GET", "/readyz"))).body as { snapshot_rejected?: { id: string; error: string }; status: string };
    seen = body;
    return body.snapshot_rejected?.id === id && body;
  }, { every: 100, seen: () => seen });
  expect(ready.snapshot_rejected!.error).toContain(files.changes);
  expect(ready.status).toBe("ready");
  expect(run.services.snapshot().id).toBe(live.id);
  // The graph answers from the live snapshot: not the refused one's marker, and its status says so.
  expect(run.services.graph.status().snapshot).toBe(live.id);
  expect((await marked()).count).toBe(0);
  const count = await json(await run.request("POST", "/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }" }));
  expect(count.status).toBe(200);
  expect(count.body.data[0].n).toBeGreaterThan(0);
  // Put CURRENT back, as an operator would.
  writeFileSync(run.services.dir.current, `${live.id}\n`);
}, 120_000);
