import { expect, test } from "bun:test";
import { renameSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "../../src/log.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { copyOfFixture, testConfig } from "../support/fixture.ts";
import { until } from "../support/until.ts";

test("a failed start is tried again, and the server comes up once the cause is gone", async () => {
  const root = await copyOfFixture();
  const manifest = join(snapshotPath(dataDir(root), currentSnapshotId(dataDir(root))!), "manifest.json");
  renameSync(manifest, `${manifest}.away`); // the live snapshot cannot be read (yet)
  const services = await Supervisor.open(testConfig({ data_dir: root }), silentLogger, { startRetryMs: 200 });
  try {
    await expect(services.start()).rejects.toThrow();
    expect(services.phase).toBe("failed");
    expect((await services.readiness()).ready).toBe(false);
    renameSync(`${manifest}.away`, manifest);
    await until("the retried start to succeed", 60_000, () => services.phase === "ready", { seen: () => ({ phase: services.phase, error: services.error }) });
    expect(services.error).toBeUndefined();
    expect((await services.readiness()).ready).toBe(true);
  } finally {
    await services.close();
  }
}, 120_000);
