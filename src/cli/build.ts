/**
 * @module cli/build
 * `ckg build`: generate the default dataset (real reference data plus the labelled synthetic fill)
 * as a new snapshot and make it the live one.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { createLogger } from "../log.ts";
import type { Command } from "./command.ts";

export const build: Command = {
  name: "build",
  summary:
    "Build a snapshot of the default dataset (real reference entities plus a seeded synthetic fill, labelled synthetic) " +
    "into the data directory and make it the live snapshot. --scale full builds the published size (586,000+ entities).",
  usage: "[options]",
  settings: COMMAND_SETTINGS.build,
  options: {
    clean: { type: "boolean", help: "build the world without the planted anomalies (the baseline the signal tests compare with)" },
  },
  async run({ config, options }) {
    const [{ buildSettings, buildSnapshot }, { dataDir }] = await Promise.all([import("../snapshot/build.ts"), import("../store/data-dir.ts")]);
    const log = createLogger(config.log_level, 2);
    const built = await buildSnapshot({ ...(await buildSettings(config)), dir: dataDir(config.data_dir), plants: options.clean !== true, log });
    const { counts, build: meta, synthetic } = built.manifest;
    console.log(
      `snapshot ${built.id}: ${counts.entities.toLocaleString("en")} entities, ${counts.quads.toLocaleString("en")} quads, ` +
        `${counts.changes.toLocaleString("en")} changes; built in ${(meta.duration_ms / 1000).toFixed(1)} s` +
        `${synthetic ? " (includes SYNTHETIC demo data)" : ""}\n${built.path}`,
    );
  },
};
