/**
 * `ckg backup` and `ckg restore` as a person runs them (child processes of this checkout's ckg), on
 * a copy of the fixture world: a backup taken while a scan writes and payments and subscriptions
 * arrive restores everything committed before it began, consistently; a corrupt backup fails its
 * verification and restores nothing; the refusals leave everything as it was.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PaymentLedger } from "../../src/payments/ledger.ts";
import { createSubscription } from "../../src/push/subscriptions.ts";
import { selfCommand } from "../../src/runtime.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { engineAvailable } from "../support/engines.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const env = { ...process.env, CKG_LOG_LEVEL: "warn" };

function ckg(...args: string[]): { code: number; out: string; err: string } {
  const run = Bun.spawnSync(selfCommand(...args), { env });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
}

function rows<T>(stateDb: string, sql: string): T[] {
  const db = new Database(stateDb, { readonly: true });
  try {
    return db.query<T, []>(sql).all();
  } finally {
    db.close();
  }
}

/** Every file under `root` with its bytes: what "nothing changed" compares. */
function listing(root: string): Record<string, string> {
  if (!existsSync(root)) return {};
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else out[path.slice(root.length)] = new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
    }
  };
  walk(root);
  return out;
}

let source: string;
let backup: string;
const before = { payments: [] as string[], subscriptions: [] as string[], signals: [] as string[], moves: [] as number[] };
let written = { payments: [] as string[] };

beforeAll(async () => {
  source = await copyOfFixture();
  // A first scan: signals and their moves exist before the backup.
  expect(ckg("scan", "--data-dir", source).code).toBe(0);
  const state = openSqliteState(join(source, "state.sqlite"));
  const ledger = new PaymentLedger(state);
  let stop = false;
  const settled: string[] = [];
  const subscriptions: string[] = [];
  // Payments and subscriptions arriving all along, through the ledger's and the subscriptions' own writes.
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      const key = `pay-${String(i).padStart(6, "0")}`;
      const claim = { key, operation: "sparql", amount: "10000", asset: "0xusdc", network: "eip155:8453", payTo: "0xpayto", payer: "0xpayer", nonce: key, validBefore: null, requestId: key };
      expect((await ledger.claim(claim)).ok).toBe(true);
      await ledger.mark(key, "settled", { tx: `0x${i.toString(16)}` });
      settled.push(key);
      if (i % 10 === 0) subscriptions.push((await createSubscription(state, { filters: { signals: {}, changes: false }, webhookUrl: null, stream: true, periodDays: 30 })).subscription.id);
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  // A second scan writes meanwhile (another as-of day: new signals and moves).
  const scan = Bun.spawn(selfCommand("scan", "--data-dir", source, "--days", "3"), { env, stdout: "ignore", stderr: "pipe" });
  await until("payments arriving", 30_000, () => settled.length >= 50);
  // What was committed before the backup began: all of it must come back.
  before.payments = [...settled];
  before.subscriptions = [...subscriptions];
  before.signals = rows<{ signal_id: string }>(join(source, "state.sqlite"), "SELECT signal_id FROM signals").map((r) => r.signal_id);
  before.moves = rows<{ id: number }>(join(source, "state.sqlite"), "SELECT id FROM signal_moves").map((r) => r.id);
  backup = join(tempDir("ckg-backup-test-"), "b1");
  const taken = Bun.spawn(selfCommand("backup", backup, "--data-dir", source), { env, stdout: "pipe", stderr: "pipe" });
  const code = await taken.exited;
  if (code !== 0) throw new Error(`ckg backup: ${code} ${await new Response(taken.stderr).text()}`);
  stop = true;
  await writer;
  expect(await scan.exited).toBe(0);
  written = { payments: settled };
  await state.close();
}, 240_000);

describe("ckg backup, then ckg restore", () => {
  test("every settled payment, signal, move and subscription committed before the backup comes back, as of one instant", () => {
    expect(before.signals.length).toBeGreaterThan(0);
    expect(before.moves.length).toBeGreaterThan(0);
    const target = join(tempDir("ckg-restore-test-"), "data");
    const restored = ckg("restore", backup, "--data-dir", target);
    expect(restored.code, restored.err).toBe(0);
    const stateDb = join(target, "state.sqlite");
    const payments = rows<{ payment_key: string; state: string }>(stateDb, "SELECT payment_key, state FROM payments ORDER BY payment_key");
    for (const key of before.payments) expect(payments.find((p) => p.payment_key === key)?.state).toBe("settled");
    // One instant: the payments are the first k written, none missing between (a copy made table by table or page by page would not be).
    expect(payments.map((p) => p.payment_key)).toEqual(written.payments.slice(0, payments.length));
    const subscriptions = new Set(rows<{ subscription_id: string }>(stateDb, "SELECT subscription_id FROM subscriptions").map((r) => r.subscription_id));
    for (const id of before.subscriptions) expect(subscriptions.has(id)).toBe(true);
    const signals = new Set(rows<{ signal_id: string }>(stateDb, "SELECT signal_id FROM signals").map((r) => r.signal_id));
    for (const id of before.signals) expect(signals.has(id)).toBe(true);
    const moves = rows<{ id: number; signal_id: string }>(stateDb, "SELECT id, signal_id FROM signal_moves");
    const moveIds = new Set(moves.map((m) => m.id));
    for (const id of before.moves) expect(moveIds.has(id)).toBe(true);
    for (const move of moves) expect(signals.has(move.signal_id)).toBe(true);
    // The restored directory is a data directory this ckg serves from: its live snapshot is the backup's.
    expect(readFileSync(join(target, "CURRENT"), "utf8").trim()).toBe(JSON.parse(readFileSync(join(backup, "backup.json"), "utf8")).snapshot);
  });

  test("--verify restores into a scratch directory and each engine answers", () => {
    const verified = ckg("restore", backup, "--verify");
    expect(verified.code, verified.err).toBe(0);
    for (const check of ["files", "state", "sql", "sparql", "search", "signals", "ledger"]) expect(verified.out).toMatch(new RegExp(`ok +${check} `));
    expect(verified.out).toContain("verified:");
  }, 120_000);

  test("a corrupt backup fails verification and restores nothing", () => {
    const corrupt = join(tempDir("ckg-backup-corrupt-"), "b");
    cpSync(backup, corrupt, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(corrupt, "backup.json"), "utf8")) as { files: { path: string }[] };
    const victim = manifest.files.find((f) => f.path.startsWith("snapshots/") && f.path.endsWith(".parquet"))!.path;
    const bytes = readFileSync(join(corrupt, victim));
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(join(corrupt, victim), bytes);
    const verified = ckg("restore", corrupt, "--verify");
    expect(verified.code).toBe(1);
    expect(verified.err).toContain(`${victim} does not match its recorded SHA-256`);
    const parent = tempDir("ckg-restore-corrupt-");
    const restored = ckg("restore", corrupt, "--data-dir", join(parent, "data"));
    expect(restored.code).toBe(1);
    expect(restored.err).toContain("nothing was changed");
    expect(readdirSync(parent)).toEqual([]); // no data directory, no staging left beside it
  });

  test("refusals change nothing: a data directory that holds data, a backup path that exists, a backup from a newer ckg", () => {
    const held = listing(source);
    const into = ckg("restore", backup, "--data-dir", source);
    expect(into.code).toBe(1);
    expect(into.err).toContain("already holds data");
    expect(listing(source)).toEqual(held);

    const taken = listing(backup);
    const again = ckg("backup", backup, "--data-dir", source);
    expect(again.code).toBe(1);
    expect(again.err).toContain("already exists");
    expect(listing(backup)).toEqual(taken);

    const newer = join(tempDir("ckg-backup-newer-"), "b");
    cpSync(backup, newer, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(newer, "backup.json"), "utf8"));
    writeFileSync(join(newer, "backup.json"), JSON.stringify({ ...manifest, format: 99, ckg_version: "9.0.0" }));
    const parent = tempDir("ckg-restore-newer-");
    const refused = ckg("restore", newer, "--data-dir", join(parent, "data"));
    expect(refused.code).toBe(4);
    expect(refused.err).toContain("newer ckg (ckg 9.0.0)");
    expect(readdirSync(parent)).toEqual([]);
  });
});

describe("ckg backup on a full disk", () => {
  let mount: string | undefined;
  afterAll(() => {
    if (mount) Bun.spawnSync(["umount", mount]);
  });

  test("fails saying the disk is full, and leaves nothing behind", () => {
    const point = tempDir("ckg-backup-full-");
    // A small tmpfs: the backup runs out of room midway. Mounting needs root; said plainly where it cannot.
    const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", point]);
    // Skipped, saying why (fails instead under CKG_REQUIRE_ENGINES=1, as .ci/run sets it).
    if (mounted.exitCode !== 0 && !engineAvailable("a tmpfs", false, "the backup's full-disk test", `mount -t tmpfs failed: ${mounted.stderr.toString().trim()}`)) return;
    mount = point;
    const full = ckg("backup", join(point, "b"), "--data-dir", source);
    expect(full.code).toBe(1);
    expect(full.err).toContain("the disk is full");
    expect(full.err).toContain("nothing was left");
    expect(readdirSync(point)).toEqual([]);
  });
});
