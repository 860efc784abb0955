/**
 * Signed snapshot packs through the real command line (`ckg keys`, `ckg snapshot pack|verify|install`
 * as child processes): a pack of the fixture's snapshot verifies with the key that signed it, and
 * every kind of bad pack (a wrong key, a changed byte, a cut, a newer format, entries that are not
 * the signed files) is refused by verify and by install, which leave the target data directory
 * exactly as it was, down to every byte, and a data directory that was not there not there.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../../src/exit-codes.ts";
import { readSigningKey, signBytes } from "../../src/snapshot/keys.ts";
import { listFiles } from "../../src/store/file-hashes.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { copyOf, fixtureDataDir } from "../support/fixture.ts";
import { type Entry, ckg, packManifestOf, readEntries, treeDigest, writeEntries } from "../support/packs.ts";
import { tempDir } from "../support/temp-dirs.ts";

let work: string;
let fixture: string;
let id: string;
let keys: { key: string; pub: string; otherKey: string; otherPub: string };
let packFile: string;
let entries: Entry[];
/** A data directory holding another snapshot, where every refused install is tried. */
let target: string;

beforeAll(async () => {
  work = tempDir("ckg-pack-");
  fixture = await fixtureDataDir();
  id = currentSnapshotId(dataDir(fixture))!;
  const first = ckg({}, "keys", "generate", "--out", join(work, "keys"));
  const second = ckg({}, "keys", "generate", "--out", join(work, "other"));
  expect(first.code, first.err).toBe(0);
  keys = { key: join(work, "keys", "ckg-snapshot.key"), pub: first.out.trim(), otherKey: join(work, "other", "ckg-snapshot.key"), otherPub: second.out.trim() };
  packFile = join(work, "fixture.ckg.tar");
  const packed = ckg({}, "snapshot", "pack", packFile, "--data-dir", fixture, "--snapshot-signing-key", keys.key);
  expect(packed.code, packed.err).toBe(0);
  entries = await readEntries(packFile);
  target = copyOf(fixture);
  const other = "20200101T000000Z-0000aa";
  renameSync(snapshotPath(dataDir(target), id), snapshotPath(dataDir(target), other));
  writeFileSync(dataDir(target).current, `${other}\n`);
}, 120_000);

describe("ckg keys", () => {
  test("generate writes the private key readable by its owner only and the public line it prints; public prints it again", () => {
    expect(keys.pub).toMatch(/^ckg-ed25519:[A-Za-z0-9_-]{43}$/);
    expect(statSync(keys.key).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(work, "keys", "ckg-snapshot.pub"), "utf8").trim()).toBe(keys.pub);
    expect(readFileSync(keys.key, "utf8")).toStartWith("-----BEGIN PRIVATE KEY-----");
    expect(ckg({}, "keys", "public", keys.key).out.trim()).toBe(keys.pub);
    expect(keys.otherPub).not.toBe(keys.pub);
  });

  test("generate never overwrites a key: exit 2, the files as they were", () => {
    const before = treeDigest(join(work, "keys"));
    const again = ckg({}, "keys", "generate", "--out", join(work, "keys"));
    expect(again.code).toBe(EXIT.usage);
    expect(again.err).toContain("is never overwritten");
    expect(treeDigest(join(work, "keys"))).toEqual(before);
  });

  test("public of a file that holds no key: exit 1 saying so", () => {
    const run = ckg({}, "keys", "public", join(work, "keys", "ckg-snapshot.pub"));
    expect(run.code).toBe(EXIT.failure);
    expect(run.err).toContain("holds no private key");
  });
});

describe("ckg snapshot pack", () => {
  test("the pack manifest first, its signature second, then every file of the snapshot as <id>/<path>, each listed with its size and SHA-256", () => {
    const folder = snapshotPath(dataDir(fixture), id);
    const manifest = packManifestOf(entries);
    expect(entries.slice(0, 2).map((e) => e.header.name)).toEqual(["ckg-pack.json", "ckg-pack.sig"]);
    expect(JSON.parse(entries[1]!.data.toString()).public_key).toBe(keys.pub);
    expect(manifest.snapshot.id).toBe(id);
    expect(manifest.files.map((f) => f.path)).toEqual(listFiles(folder, ["signature.json"]));
    expect(entries.slice(2).map((e) => e.header.name)).toEqual(manifest.files.map((f) => `${id}/${f.path}`));
    for (const file of manifest.files) {
      const bytes = readFileSync(join(folder, file.path));
      expect({ size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") }, file.path).toEqual({ size: file.size, sha256: file.sha256 });
    }
  });

  test("refused without a signing key, onto an existing file, or for a snapshot that is not there (exit 2); with no snapshot at all, exit 3", () => {
    const noKey = ckg({}, "snapshot", "pack", join(work, "x.tar"), "--data-dir", fixture);
    expect([noKey.code, noKey.err]).toEqual([EXIT.usage, expect.stringContaining("--snapshot-signing-key")]);
    const before = readFileSync(packFile);
    const onto = ckg({}, "snapshot", "pack", packFile, "--data-dir", fixture, "--snapshot-signing-key", keys.key);
    expect([onto.code, onto.err]).toEqual([EXIT.usage, expect.stringContaining("exists")]);
    expect(readFileSync(packFile).equals(before)).toBe(true);
    const unknown = ckg({}, "snapshot", "pack", join(work, "x.tar"), "--data-dir", fixture, "--snapshot-signing-key", keys.key, "--snapshot", "20200101T000000Z-abcdef");
    expect(unknown.code).toBe(EXIT.usage);
    const empty = ckg({}, "snapshot", "pack", join(work, "x.tar"), "--data-dir", join(work, "empty"), "--snapshot-signing-key", keys.key);
    expect(empty.code).toBe(EXIT.noSnapshot);
  });
});

describe("ckg snapshot verify", () => {
  test("accepts the pack signed by a trusted key (alone or among others) after checking every file", () => {
    for (const trusted of [keys.pub, `${keys.otherPub}, ${keys.pub}`]) {
      const run = ckg({ CKG_SNAPSHOT_TRUSTED_KEYS: trusted }, "snapshot", "verify", packFile);
      expect(run.code, run.err).toBe(0);
      expect(run.out).toContain(`snapshot ${id}`);
      expect(run.out).toContain(`signed by ${keys.pub} (trusted); every file matches`);
    }
  });

  test("with no trusted key it refuses (exit 2) and says how to trust one", () => {
    const run = ckg({}, "snapshot", "verify", packFile);
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toContain("no trusted keys");
    expect(run.err).toContain("CKG_SNAPSHOT_TRUSTED_KEYS");
  });

  test("a trusted key that is not a key is a configuration error (exit 2)", () => {
    const run = ckg({ CKG_SNAPSHOT_TRUSTED_KEYS: "ckg-ed25519:short" }, "snapshot", "verify", packFile);
    expect(run.code).toBe(EXIT.usage);
    expect(run.err).toContain("setting snapshot_trusted_keys (from CKG_SNAPSHOT_TRUSTED_KEYS)");
  });
});

/** The pack with its manifest changed and signed again with `key`, as a newer or a hostile packer would. */
function resigned(change: (manifest: any) => void, key = keys.key): Entry[] {
  const manifest = packManifestOf(entries);
  change(manifest);
  const bytes = Buffer.from(JSON.stringify(manifest));
  const signature = Buffer.from(`${JSON.stringify(signBytes(bytes, readSigningKey(key)))}\n`);
  return [{ header: entries[0]!.header, data: bytes }, { header: entries[1]!.header, data: signature }, ...entries.slice(2)];
}

function fileEntry(name: string, data: Buffer): Entry {
  return { header: { ...entries[2]!.header, name, size: data.length }, data };
}

type Case = { name: string; write: (file: string) => Promise<void>; code: number; says: string; trust?: () => string };

const cases: Case[] = [
  { name: "a pack signed by a key that is not trusted", write: async (f) => writeFileSync(f, readFileSync(packFile)), code: EXIT.failure, says: "which is not a trusted key", trust: () => keys.otherPub },
  {
    name: "a pack with one byte of one file changed",
    write: (f) => {
      const changed = entries.map((e) => (e.header.name.endsWith("/graph.nq") ? { ...e, data: Buffer.from(e.data) } : e));
      const graph = changed.find((e) => e.header.name.endsWith("/graph.nq"))!;
      graph.data[graph.data.length >> 1]! ^= 0x01;
      return writeEntries(f, changed);
    },
    code: EXIT.failure,
    says: "'graph.nq' differs from what was signed",
  },
  { name: "a pack cut short inside a file", write: async (f) => writeFileSync(f, readFileSync(packFile).subarray(0, Math.floor(statSync(packFile).size * 0.6))), code: EXIT.failure, says: "cut short" },
  { name: "a pack cut short between two files", write: (f) => writeEntries(f, entries.slice(0, -1)), code: EXIT.failure, says: "cut short" },
  { name: "a pack cut short before its files", write: async (f) => writeFileSync(f, readFileSync(packFile).subarray(0, 3072)), code: EXIT.failure, says: "cut short" },
  { name: "a pack of a newer pack format", write: (f) => writeEntries(f, resigned((m) => (m.format = 2))), code: EXIT.newerFormat, says: "was written by a newer ckg" },
  { name: "a pack of a newer snapshot format", write: (f) => writeEntries(f, resigned((m) => (m.snapshot.format = 2))), code: EXIT.newerFormat, says: "its format is 2" },
  {
    // A different first digit of the first file's SHA-256 (the same digit would change nothing, 1 time in 16).
    name: "a pack manifest changed after signing",
    write: (f) => writeEntries(f, [{ header: entries[0]!.header, data: Buffer.from(entries[0]!.data.toString().replace(/"sha256":"([0-9a-f])/, (_, c: string) => `"sha256":"${c === "0" ? "1" : "0"}`)) }, ...entries.slice(1)]),
    code: EXIT.failure,
    says: "its signature does not match what it signs",
  },
  { name: "an entry that is not among the signed files", write: (f) => writeEntries(f, [...entries, fileEntry(`${id}/extra.bin`, Buffer.from("extra"))]), code: EXIT.failure, says: "/extra.bin' is not among the signed files" },
  { name: "an entry whose path leaves the snapshot", write: (f) => writeEntries(f, [...entries.slice(0, 2), fileEntry(`${id}/../../evil`, Buffer.from("x")), ...entries.slice(2)]), code: EXIT.failure, says: "is not among the signed files" },
  {
    name: "a signed path that leaves the snapshot",
    write: (f) => writeEntries(f, [...resigned((m) => m.files.push({ path: "../evil", size: 1, sha256: "0".repeat(64) })), fileEntry(`${id}/../evil`, Buffer.from("x"))]),
    code: EXIT.failure,
    says: "'../evil', which is not a plain relative path",
  },
  {
    name: "a symbolic link",
    write: (f) => writeEntries(f, [...entries.slice(0, 2), { header: { ...entries[2]!.header, name: `${id}/search/link`, type: "symlink", linkname: "/etc/passwd" }, data: Buffer.alloc(0) }, ...entries.slice(2)]),
    code: EXIT.failure,
    says: "is a symlink; a pack holds only files",
  },
  { name: "a file twice", write: (f) => writeEntries(f, [...entries, entries.find((e) => e.header.name === `${id}/manifest.json`)!]), code: EXIT.failure, says: "appears twice" },
  { name: "a tar that is not a pack", write: (f) => writeEntries(f, entries.slice(2)), code: EXIT.failure, says: "not a ckg snapshot pack" },
  { name: "a file that is not a tar", write: async (f) => writeFileSync(f, Buffer.alloc(4096, "not a tar ")), code: EXIT.failure, says: "is refused" },
];

describe("refused by verify and by install, nothing changed", () => {
  test.each(cases.map((c) => [c.name, c]))("%s", async (_, c) => {
    const file = join(work, `${c.name.replaceAll(" ", "-")}.tar`);
    await c.write(file);
    const env = { CKG_SNAPSHOT_TRUSTED_KEYS: c.trust?.() ?? keys.pub };
    const verified = ckg(env, "snapshot", "verify", file);
    expect(verified.code, verified.err).toBe(c.code);
    expect(verified.err).toContain(c.says);

    const before = treeDigest(target);
    const installed = ckg(env, "snapshot", "install", file, "--data-dir", target);
    expect(installed.code, installed.err).toBe(c.code);
    expect(installed.err).toContain(c.says);
    expect(treeDigest(target)).toEqual(before);

    const absent = join(work, "never-made");
    const fresh = ckg(env, "snapshot", "install", file, "--data-dir", absent);
    expect(fresh.code, fresh.err).toBe(c.code);
    expect(treeDigest(absent)).toEqual(["(absent)"]);
  }, 60_000);
});
