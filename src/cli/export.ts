/**
 * @module cli/export
 * `ckg export <dir>`: the live snapshot as files a researcher can use without ckg: the Parquet
 * tables (entities, facts, changes, every ts_* series), the RDF dump (N-Quads, one named graph per
 * source), the manifest and a SOURCES.md that says where every fact comes from and which are
 * synthetic. An external SPARQL store (CKG_SPARQL_URL) loads graph.nq and snapshot.nq.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Command } from "./command.ts";
import { UsageError } from "./command.ts";
import { snapshotMarkerQuad } from "../graph/remote-store.ts";

/** The one-quad file that tells an external SPARQL store's readers which snapshot it holds. */
const SNAPSHOT_MARKER_FILE = "snapshot.nq";

export const exportCommand: Command = {
  name: "export",
  summary: "Write the live snapshot to <dir> as Parquet tables plus an RDF dump (N-Quads), with its manifest and source attribution.",
  usage: "<dir> [options]",
  settings: COMMAND_SETTINGS.export,
  async run({ config, positionals }) {
    const [{ copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync }, { join }, { liveSnapshotId, dataDir, snapshotPath }, { readManifest, MANIFEST_FILE }] =
      await Promise.all([import("node:fs"), import("node:path"), import("../store/data-dir.ts"), import("../store/manifest.ts")]);
    const out = positionals[0];
    if (!out || positionals.length > 1) throw new UsageError("give the folder to write to: ckg export <dir>");
    if (existsSync(out) && readdirSync(out).length > 0) throw new UsageError(`${out} is not empty; export writes into an empty or new folder`);
    const dir = dataDir(config.data_dir);
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
    writeFileSync(join(out, "SOURCES.md"), lines.join("\n"));
    console.log(`exported snapshot ${id} (${files.length} files) to ${out}`);
  },
};
