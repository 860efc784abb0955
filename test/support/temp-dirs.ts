/**
 * Temporary directories of a test run, removed when the run ends (test/support/cleanup.ts, preloaded
 * by bunfig.toml). `bun test` fires neither `exit` nor `beforeExit`, so removal hooked there never ran
 * and every run left its data directories behind (about 1.5 GB).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
