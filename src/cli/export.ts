/**
 * @module cli/export
 * `ckg export <dir>`: the live snapshot as files a researcher can use without ckg (snapshot/export.ts):
 * Parquet tables, an RDF dump (N-Quads), the manifest and the sources' attribution.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Command } from "./command.ts";
import { UsageError } from "./command.ts";

export const exportCommand: Command = {
  name: "export",
  summary: "Write the live snapshot to <dir> as Parquet tables plus an RDF dump (N-Quads), with its manifest and source attribution.",
  usage: "<dir> [options]",
  settings: COMMAND_SETTINGS.export,
  async run({ config, positionals }) {
    const [{ existsSync, readdirSync }, { dataDir }, { exportSnapshot }] = await Promise.all([import("node:fs"), import("../store/data-dir.ts"), import("../snapshot/export.ts")]);
    const out = positionals[0];
    if (!out || positionals.length > 1) throw new UsageError("give the folder to write to: ckg export <dir>");
    if (existsSync(out) && readdirSync(out).length > 0) throw new UsageError(`${out} is not empty; export writes into an empty or new folder`);
    const { id, files } = exportSnapshot(dataDir(config.data_dir), out);
    console.log(`exported snapshot ${id} (${files.length} files) to ${out}`);
  },
};
