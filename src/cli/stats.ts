/**
 * @module cli/stats
 * `ckg stats`: what the live snapshot holds (entities by type, real beside synthetic; sources), and
 * with `--duplicates` the entities that look like one real thing left as two (snapshot/duplicates).
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { join } from "node:path";
import { EXIT } from "../exit-codes.ts";
import { type Command, UsageError } from "./command.ts";

export const stats: Command = {
  name: "stats",
  summary: "Print what the live snapshot holds (entities by type, real and synthetic; sources), and with --duplicates the entities that look like one thing left as two.",
  usage: "[options]",
  settings: COMMAND_SETTINGS.stats,
  options: {
    duplicates: { type: "boolean", help: "list entities sharing a contract address, chain key, external page, or type, name and symbol" },
    limit: { type: "string", help: "duplicate groups to print (default 50; --json prints all)" },
    json: { type: "boolean", help: "print JSON" },
  },
  async run({ config, options }) {
    const limit = options.limit === undefined ? 50 : Number(options.limit);
    if (!Number.isInteger(limit) || limit < 0) throw new UsageError("--limit takes a whole number of groups, such as 50");
    const [{ liveSnapshotId, dataDir, snapshotPath }, { readManifest }, { openDuck, sqlString, withConnection }, { findDuplicates }] = await Promise.all([
      import("../store/data-dir.ts"),
      import("../store/manifest.ts"),
      import("../store/duckdb.ts"),
      import("../snapshot/duplicates.ts"),
    ]);
    const dir = dataDir(config.data_dir);
    const id = liveSnapshotId(dir);
    const snapshotDir = snapshotPath(dir, id);
    const manifest = readManifest(snapshotDir);
    const synthetic = new Set(manifest.sources.filter((s) => s.synthetic).map((s) => s.id));
    const duck = await openDuck();
    const counts = await withConnection(duck, async (c) => {
      const reader = await c.runAndReadAll(
        `SELECT type, source, count(*)::INTEGER AS n FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.entities))}) GROUP BY ALL ORDER BY type`,
      );
      return reader.getRowObjectsJS() as unknown as { type: string; source: string; n: number }[];
    });
    const byType: { type: string; real: number; synthetic: number }[] = [];
    for (const { type, source, n } of counts) {
      let row = byType.find((r) => r.type === type);
      if (!row) byType.push((row = { type, real: 0, synthetic: 0 }));
      row[synthetic.has(source) ? "synthetic" : "real"] += n;
    }
    const duplicates = options.duplicates ? await findDuplicates(duck, snapshotDir, manifest) : undefined;
    const sources = manifest.sources.map(({ id, kind, synthetic, entities, facts, as_of }) => ({ id, kind, synthetic, entities, facts, as_of }));
    if (options.json) {
      console.log(JSON.stringify({ snapshot_id: id, as_of: manifest.as_of, synthetic: manifest.synthetic, entities_by_type: byType, sources, duplicates }));
      return EXIT.ok;
    }
    const total = (key: "real" | "synthetic") => byType.reduce((s, r) => s + r[key], 0);
    console.log(`snapshot ${id}, as of ${manifest.as_of}${manifest.synthetic ? " (holds synthetic demo data)" : ""}`);
    console.log(`entities: ${total("real")} real, ${total("synthetic")} synthetic`);
    for (const r of byType) console.log(`  ${r.type.padEnd(20)} ${String(r.real).padStart(8)} real ${String(r.synthetic).padStart(8)} synthetic`);
    console.log("sources:");
    for (const s of sources) console.log(`  ${s.id.padEnd(24)} ${s.kind.padEnd(10)} ${String(s.entities).padStart(8)} entities ${String(s.facts).padStart(9)} facts${s.synthetic ? "  synthetic" : ""}`);
    if (!duplicates) return EXIT.ok;
    const reasons = Object.entries(duplicates.by_reason).map(([r, n]) => `${n} by ${r.replaceAll("_", " ")}`).join(", ");
    console.log(`duplicates: ${duplicates.groups.length} groups over ${duplicates.entities} entities (${reasons})`);
    for (const g of duplicates.groups.slice(0, limit)) {
      console.log(`  ${g.reason} ${g.value}`);
      for (const m of g.members) console.log(`    ${m.id.padEnd(40)} ${m.name}${m.symbol ? ` (${m.symbol})` : ""}  [${m.source}]`);
    }
    if (duplicates.groups.length > limit) console.log(`  ... ${duplicates.groups.length - limit} more (--limit, or --json for all)`);
    return EXIT.ok;
  },
};
