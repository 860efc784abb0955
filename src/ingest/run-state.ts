/**
 * @module ingest/run-state
 * What an ingest keeps under <data>/ingest between runs: the run folder of saved answers (kept for a
 * resumed run of the same day) and the cursors, each history's last stored day.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";
import type { DataDir } from "../store/data-dir.ts";
import type { ProviderId, ProviderOutput } from "./records.ts";

const ingestRoot = (dir: DataDir) => join(dir.root, "ingest");
const runDir = (dir: DataDir) => join(ingestRoot(dir), "run");
const cursorsFile = (dir: DataDir) => join(ingestRoot(dir), "cursors.json");

export type Cursors = Partial<Record<ProviderId, Record<string, string>>>;

export function readCursors(dir: DataDir): Cursors {
  const file = cursorsFile(dir);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Cursors) : {};
}

/** Writes a JSON file whole (a temporary name, then rename). */
export function writeJson(path: string, value: unknown): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 1)}\n`);
  renameSync(temporary, path);
}

/** The run folder: kept when it is this day's run for the same providers (a resumed run), else started afresh. */
export function prepareRun(dir: DataDir, today: string, providers: ProviderId[], log: Logger): string {
  const root = runDir(dir);
  const metaFile = join(root, "run.json");
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, "utf8")) as { today: string; providers: ProviderId[] };
    if (meta.today === today) {
      log.info({ started_for: meta.today }, "resuming the unfinished ingest of today: saved answers are not asked again");
      writeJson(metaFile, { today, providers: [...new Set([...meta.providers, ...providers])] });
      return join(root, "raw");
    }
  }
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, "raw"), { recursive: true });
  writeJson(metaFile, { today, providers });
  return join(root, "raw");
}

/** Each history's last stored day, from the rows this run parsed (keyed as the provider names them) and the histories it says it reached. */
export function advanceCursors(dir: DataDir, cursors: Cursors, outputs: ProviderOutput[]): void {
  for (const output of outputs) {
    const mine = (cursors[output.provider] ??= {});
    for (const [kind, rows] of output.series) {
      if (kind === "unlocks") continue; // scheduled days, not history
      for (const row of rows) {
        const k = row.entity_id;
        const day = row.date;
        if (typeof k !== "string" || typeof day !== "string") continue;
        if (!mine[k] || mine[k]! < day) mine[k] = day;
      }
    }
    for (const [k, day] of output.reached) if (!mine[k] || mine[k]! < day) mine[k] = day;
  }
  mkdirSync(ingestRoot(dir), { recursive: true });
  writeJson(cursorsFile(dir), cursors);
}

/** The run folder goes once its answers are published: the next run starts afresh. */
export function clearRun(dir: DataDir): void {
  rmSync(runDir(dir), { recursive: true, force: true });
}
