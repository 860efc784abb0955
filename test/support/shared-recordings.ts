/**
 * Provider answers recorded by other people, read in place from `../shared/real-api/` beside the
 * clone (CI has that folder there) and never copied into this repository: `test/fixtures/` keeps only
 * what the project wrote (test/fixtures/SOURCES.md lists what is read from where). This is the one
 * place that says where that folder is and whether a recording is in it, so that every test needing
 * one skips with the same plain reason where it is absent instead of failing on a missing file.
 *
 * CKG_SHARED_DIR points at another `shared` folder (an empty one shows what a clone without it does).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const REPO = join(import.meta.dir, "..", "..");
/** The `shared` folder: beside the clone unless CKG_SHARED_DIR names another. */
const SHARED_DIR = process.env.CKG_SHARED_DIR || join(REPO, "..", "shared");

/** A recording's path under `shared/real-api/` (e.g. `third-party/coingecko/ruby/coin_bitcoin.json`). */
const recordingPath = (path: string): string => join(SHARED_DIR, "real-api", path);

/** Whether the recording (file or folder) is there. */
export const haveRecording = (path: string): boolean => existsSync(recordingPath(path));

/** A recorded JSON answer; a clear error naming the path where it is absent (check haveRecording first). */
export function readRecording<T = unknown>(path: string): T {
  const file = recordingPath(path);
  if (!existsSync(file)) throw new Error(`${absent(path)}: read it only where haveRecording("${path}") holds`);
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/** The path as the README gives it (`../shared/...`), or whole where CKG_SHARED_DIR moved it. */
function shown(path: string): string {
  const rel = relative(REPO, recordingPath(path));
  return rel.startsWith(join("..", "..")) ? recordingPath(path) : rel;
}
const absent = (path: string) => `${shown(path)} is absent`;
const said = new Set<string>();

/**
 * Says once per run, on stderr, what is skipped because a recording is absent, and returns whether it
 * is absent (for `test.skipIf(skipWithout(...))`): bun lists the skipped tests by name, this says why.
 */
export function skipWithout(path: string, what: string): boolean {
  if (haveRecording(path)) return false;
  const line = `skipped: ${what} (${absent(path)}; CI has ../shared beside the clone)`;
  if (!said.has(line)) {
    said.add(line);
    console.warn(line);
  }
  return true;
}
