/**
 * A new snapshot that is the live one again under a new id, published as `ckg ingest` publishes:
 * the running server switches to it and appends its changes to the feed once more (they belong to
 * the new id), so tests see graph changes committed without building another world.
 */
import { cpSync } from "node:fs";
import { newSnapshotId, publishSnapshot, stagingPath } from "../../src/store/data-dir.ts";
import type { Running } from "./fixture.ts";
import { until } from "./until.ts";

/** Publishes the copy and waits until the server has it live; its id. */
export async function republish(run: Running): Promise<string> {
  const live = run.services.snapshot();
  const id = newSnapshotId(new Date(Date.now() + 1000));
  cpSync(live.dir, stagingPath(run.services.dir, id), { recursive: true });
  publishSnapshot(run.services.dir, id);
  await until(`snapshot ${id} live`, 90_000, () => run.services.live?.id === id);
  return id;
}
