/**
 * The disk full while a snapshot is built: `ckg build` into a data directory on a small file
 * system (a tmpfs with room for the live snapshot and not for a second) fails with an error that
 * says the disk is full, the live snapshot stays live and intact, and tmp/ holds nothing.
 * Mounting needs root with CAP_SYS_ADMIN, as CI (`.ci/run` runs as root) and this machine have;
 * where a tmpfs cannot be mounted the test fails under CKG_REQUIRE_ENGINES=1, and is skipped with
 * the reason elsewhere (test/support/engines.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { selfCommand } from "../../src/runtime.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { engineAvailable } from "../support/engines.ts";
import { fixtureDataDir } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

const mountPoint = tempDir("ckg-small-disk-");
/** Whether this machine lets us mount a tmpfs (tried once, with a tiny one); why not, when it does not. */
function tryMount(): { mounted: boolean; why: string } {
  if (process.getuid?.() !== 0) return { mounted: false, why: "mounting a tmpfs needs root with CAP_SYS_ADMIN; .ci/run runs as root" };
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint], { stderr: "pipe" });
  if (mount.exitCode !== 0) return { mounted: false, why: `mount -t tmpfs failed: ${mount.stderr.toString().trim()}` };
  const umount = Bun.spawnSync(["umount", mountPoint], { stderr: "pipe" });
  if (umount.exitCode !== 0) throw new Error(`umount ${mountPoint} failed: ${umount.stderr.toString()}`);
  return { mounted: true, why: "" };
}
const probe = tryMount();
const CAN_MOUNT = engineAvailable("a tmpfs", probe.mounted, "the disk-full test", probe.why);
let root: string;

beforeAll(async () => {
  if (!CAN_MOUNT) return;
  const fixture = await fixtureDataDir();
  const used = Number(Bun.spawnSync(["du", "-sm", join(fixture, "snapshots")]).stdout.toString().split("\t")[0]);
  // Room for the live snapshot and a third of another.
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${Math.ceil(used * 1.35)}m`, "tmpfs", mountPoint]);
  if (mount.exitCode !== 0) throw new Error(`mounting a small tmpfs failed (this test needs root): ${mount.stderr.toString()}`);
  root = join(mountPoint, "data");
  mkdirSync(root);
  cpSync(join(fixture, "snapshots"), join(root, "snapshots"), { recursive: true });
  cpSync(join(fixture, "CURRENT"), join(root, "CURRENT"));
});

afterAll(() => {
  if (CAN_MOUNT) Bun.spawnSync(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

test.skipIf(!CAN_MOUNT)("a build that fills the disk: a clear error, the live snapshot intact, tmp/ cleaned", () => {
  const before = currentSnapshotId(dataDir(root));
  // The native libraries unpack elsewhere: only the snapshot build meets the full disk.
  const build = Bun.spawnSync(selfCommand("build", "--data-dir", root, "--scale", "8000", "--seed", "7"), {
    env: { ...process.env, CKG_LOG_LEVEL: "error", CKG_NATIVE_DIR: join(tempDir("ckg-native-"), "runtime") },
  });
  const stderr = build.stderr.toString();
  expect(build.exitCode).toBe(1);
  expect(stderr).toContain(`the disk holding ${root} is full`);
  expect(stderr).toContain("the live snapshot is unchanged");
  expect(currentSnapshotId(dataDir(root))).toBe(before);
  expect(readdirSync(join(root, "snapshots"))).toEqual([before!]);
  expect(readdirSync(join(root, "tmp"))).toEqual([]);
}, 180_000);
