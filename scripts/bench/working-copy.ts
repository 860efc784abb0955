/**
 * A working copy of a data directory for a benchmark's server: the live snapshot hard-linked (never
 * written, so no copy of gigabytes) and CURRENT copied; the server writes its own state database and
 * runtime folder beside them. Remove `root` when done.
 */
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DataDir, currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";

export function workingCopy(source: DataDir, prefix: string): { root: string; dir: DataDir; id: string } {
  const id = currentSnapshotId(source);
  if (!id) throw new Error(`no snapshot in ${source.root}`);
  const root = mkdtempSync(join(tmpdir(), prefix));
  const dir = dataDir(root);
  const linkTree = (from: string, to: string) => {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) {
      const path = join(from, name);
      if (statSync(path).isDirectory()) linkTree(path, join(to, name));
      else linkSync(path, join(to, name));
    }
  };
  linkTree(snapshotPath(source, id), snapshotPath(dir, id));
  copyFileSync(source.current, dir.current);
  return { root, dir, id };
}
