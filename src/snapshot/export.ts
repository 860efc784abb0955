/**
 * @module snapshot/export
 * `ckg export`: the live snapshot as files a researcher can use without ckg: the Parquet tables
 * (entities, facts, changes, every ts_* series), the RDF dump (N-Quads, one named graph per
 * source), the manifest and a SOURCES.md that says where every fact comes from and which are
 * synthetic. An external SPARQL store (CKG_SPARQL_URL) loads graph.nq and snapshot.nq.
 */
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { snapshotMarkerQuad } from "../graph/remote-store.ts";
import { type DataDir, liveSnapshotId, snapshotPath } from "../store/data-dir.ts";
import { MANIFEST_FILE, type SnapshotManifest, readManifest } from "../store/manifest.ts";

/** The one-quad file that tells an external SPARQL store's readers which snapshot it holds. */
const SNAPSHOT_MARKER_FILE = "snapshot.nq";

/** Writes the live snapshot's files into `out` (an empty or new folder): its id, and the files written. */
export function exportSnapshot(dir: DataDir, out: string): { id: string; files: string[] } {
  const id = liveSnapshotId(dir);
  const from = snapshotPath(dir, id);
  const manifest = readManifest(from);
  mkdirSync(join(out, "ts"), { recursive: true });
  const files = [manifest.files.entities, manifest.files.facts, manifest.files.changes, manifest.files.graph, MANIFEST_FILE, ...manifest.timeseries.map((t) => t.file)];
  for (const optional of ["identity.json", "conflicts.json", "ingest.json", manifest.ground_truth]) {
    if (optional && existsSync(join(from, optional))) files.push(optional);
  }
  for (const file of files) copyFileSync(join(from, file), join(out, file));
  // Loaded beside graph.nq into an external store (CKG_SPARQL_URL): the store then says which snapshot it holds.
  writeFileSync(join(out, SNAPSHOT_MARKER_FILE), snapshotMarkerQuad(id));
  files.push(SNAPSHOT_MARKER_FILE);
  writeFileSync(join(out, "SOURCES.md"), sourcesText(id, manifest));
  return { id, files };
}

/** SOURCES.md: the snapshot's sources, whether each is synthetic, its licence and attribution. */
function sourcesText(id: string, manifest: SnapshotManifest): string {
  const lines = [
    `# ckg snapshot ${id}`,
    "",
    `As of ${manifest.as_of}. ${manifest.synthetic ? "**Contains SYNTHETIC demo data**: facts from sources marked synthetic below are generated, not facts about the real world." : "No synthetic data."}`,
    "",
    `graph.nq holds every fact in the named graph of its source (${SNAPSHOT_MARKER_FILE} adds one quad naming the snapshot, for a SPARQL store that serves ckg); facts.parquet says the same in its \`source\` column, with \`as_of\` (when the fact was read); series tables are named ts_<source>_<kind>.`,
    "",
    "| source | kind | synthetic | licence | as of | entities | facts |",
    "|---|---|---|---|---|---|---|",
    ...manifest.sources.map((s) => `| ${s.id} (${s.name}) | ${s.kind} | ${s.synthetic ? "yes" : "no"} | ${s.license} | ${s.as_of} | ${s.entities} | ${s.facts} |`),
    "",
    ...manifest.sources.map((s) => `- **${s.id}**: ${s.attribution}`),
    "",
  ];
  return lines.join("\n");
}
