/**
 * A server with trusted keys serves only snapshots signed by one of them, as signed: a replica (or
 * an install) that publishes an unsigned snapshot, one signed by another key, one carrying another
 * snapshot's signature, or one whose files changed after signing is refused with a warning saying
 * why, and the live snapshot keeps answering; a snapshot `ckg build` signed with the trusted key is
 * switched to. Real services (DuckDB, graph processes, the state database) over a fixture copy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createPrivateKey } from "node:crypto";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { newKeyPair } from "../../src/snapshot/keys.ts";
import { SIGNATURE_FILE } from "../../src/snapshot/pack-manifest.ts";
import { signSnapshotFolder, snapshotSigner } from "../../src/snapshot/signature.ts";
import { currentSnapshotId, dataDir, newSnapshotId, publishSnapshot, snapshotPath, stagingPath } from "../../src/store/data-dir.ts";
import { FIXTURE_SCALE, FIXTURE_SEED, copyOfFixture, json, testConfig } from "../support/fixture.ts";
import { recordingLog } from "../support/recording-log.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const trusted = newKeyPair();
const stranger = newKeyPair();
const keyFile = join(tempDir("ckg-signing-"), "ckg-snapshot.key");
writeFileSync(keyFile, trusted.privatePem, { mode: 0o600 });

let services: Supervisor;
let app: ReturnType<typeof createServer>;
let dir: string;
const recorded = recordingLog();

const request = (method: string, path: string, body?: unknown) =>
  app.handle(new Request(`http://127.0.0.1:8402${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }));

beforeAll(async () => {
  dir = await copyOfFixture();
  const id = currentSnapshotId(dataDir(dir))!;
  await signSnapshotFolder(snapshotPath(dataDir(dir), id), id, createPrivateKey(trusted.privatePem));
  services = await Supervisor.open(testConfig({ data_dir: dir, snapshot_trusted_keys: trusted.publicKey, snapshot_poll_ms: 100 }), recorded.log);
  await services.start();
  app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
}, 120_000);

afterAll(() => services?.close());

/** A copy of the live snapshot under a new id, changed by `prepare` in its staging folder, then published as a build publishes. */
async function publishCopy(prepare: (staging: string, id: string) => void | Promise<void>): Promise<string> {
  const id = newSnapshotId(new Date(Date.now() + 1000));
  const staging = stagingPath(services.dir, id);
  cpSync(services.snapshot().dir, staging, { recursive: true });
  rmSync(join(staging, SIGNATURE_FILE), { force: true });
  await prepare(staging, id);
  publishSnapshot(services.dir, id);
  return id;
}

const refusals: [string, (staging: string, id: string) => void | Promise<void>, string][] = [
  ["an unsigned snapshot", () => undefined, "is not signed (no signature.json)"],
  ["a snapshot signed by a key that is not trusted", (staging, id) => signSnapshotFolder(staging, id, createPrivateKey(stranger.privatePem)).then(() => undefined), "which is not a trusted key"],
  ["a snapshot carrying the live snapshot's signature", (staging) => cpSync(join(services.snapshot().dir, SIGNATURE_FILE), join(staging, SIGNATURE_FILE)), "its signature was made for snapshot"],
  [
    "a signed snapshot whose file changed after signing",
    async (staging, id) => {
      await signSnapshotFolder(staging, id, createPrivateKey(trusted.privatePem));
      appendFileSync(join(staging, "graph.nq"), "<https://ckg.example/id/x> <https://ckg.example/ontology#p> \"planted\" .\n");
    },
    "graph.nq differs from what was signed",
  ],
  [
    "a signed snapshot with a file added after signing",
    async (staging, id) => {
      await signSnapshotFolder(staging, id, createPrivateKey(trusted.privatePem));
      writeFileSync(join(staging, "identity.json"), "{}");
    },
    "identity.json is not among the signed files",
  ],
];

describe("a server with trusted keys", () => {
  test.each(refusals)("refuses %s, warns why, and keeps serving the live one", async (_, prepare, why) => {
    const live = services.snapshot().id;
    const id = await publishCopy(prepare);
    let seen: unknown;
    const ready = await until(`snapshot ${id} refused in /readyz`, 60_000, async () => {
      const body = (await json(await request("GET", "/readyz"))).body;
      seen = body.snapshot_rejected;
      return body.snapshot_rejected?.id === id ? body : undefined;
    }, { seen: () => seen });
    expect(ready.snapshot_rejected.error).toContain(why);
    expect(ready.status).toBe("ready");
    expect(ready.snapshot.id).toBe(live);
    const warning = recorded.lines.find((line) => line.snapshot === id && line.level === 40);
    expect(String(warning?.msg)).toStartWith("snapshot refused");
    expect(String(warning?.err)).toContain(why);
    const sparql = await json(await request("POST", "/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }" }));
    expect(sparql.status).toBe(200);
    expect(sparql.body.data[0].n).toBeGreaterThan(0);
    expect((await request("POST", "/api/search", { query: "ethereum" })).status).toBe(200);
  }, 120_000);

  test("switches to a snapshot `ckg build` signed with the trusted key", async () => {
    const built = await buildSnapshot({ dir: services.dir, scale: FIXTURE_SCALE, seed: FIXTURE_SEED + 1, ontologyNs: "https://ckg.example/ontology#", sign: snapshotSigner(keyFile), log: recorded.log });
    await until(`snapshot ${built.id} live`, 90_000, () => services.live?.id === built.id);
    const checked = recorded.lines.find((line) => line.snapshot === built.id && line.msg === "snapshot signature checked");
    expect(checked?.signed_by).toBe(trusted.publicKey);
    expect((await json(await request("GET", "/readyz"))).body.snapshot.id).toBe(built.id);
  }, 120_000);

  test("does not start on an unsigned snapshot: /readyz says failed and why", async () => {
    const unsigned = await copyOfFixture();
    const other = await Supervisor.open(testConfig({ data_dir: unsigned, snapshot_trusted_keys: trusted.publicKey }), recorded.log, { startRetryMs: 60_000 });
    try {
      await expect(other.start()).rejects.toThrow("is not signed");
      const { ready, body } = await other.readiness();
      expect(ready).toBe(false);
      expect(body.status).toBe("failed");
      expect(body.error).toContain("only snapshots signed by a trusted key are served");
    } finally {
      await other.close();
    }
  }, 120_000);
});
