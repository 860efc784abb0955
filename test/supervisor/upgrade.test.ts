/**
 * An upgrade keeps the data: the previous release (the last one CHANGELOG.md records with its commit),
 * checked out in a git worktree and run from its source, builds a data directory, scans it, and
 * serves it with payments on against a local chain: a paid subscription, a paid read of the changes
 * feed and the free signals leave their rows in its state store. This checkout's ckg then serves the
 * same directory with no rebuild: the signals, the changes feed, the subscription and the ledger (its
 * counts, and a payment made before the upgrade refused as used) are all there, and the formats are
 * recorded (format.json), while the previous release's snapshot stays the live one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { x402Client } from "@x402/core/client";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { http, createPublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { baseSepolia } from "viem/chains";
import { selfCommand } from "../../src/runtime.ts";
import { currentSnapshotId, dataDir, readFormatRecord } from "../../src/store/data-dir.ts";
import { SEARCH_FORMAT, SNAPSHOT_FORMAT, STATE_FORMATS } from "../../src/store/formats.ts";
import { VERSION } from "../../src/version.ts";
import { type LocalChain, PAYER_KEY, PAY_TO, SETTLER_KEY, startChain } from "../support/chain.ts";
import { checkOut, previousRelease, releaseCkg, removeCheckout, runRelease } from "../support/previous-release.ts";
import { type ServerProcess, startServer } from "../support/server.ts";
import { tempDir } from "../support/temp-dirs.ts";

const release = previousRelease();
const worktree = join(tempDir("ckg-previous-release-"), "ckg");
const root = tempDir("ckg-upgrade-");
const env = { CKG_LOG_LEVEL: "info", CKG_SCAN_CRON: "off", CKG_INGEST_CRON: "off", CKG_FIRST_SCAN: "false" };
let chain: LocalChain;
let paymentsEnv: Record<string, string>;
const servers: ServerProcess[] = [];

const previousCkg = (...args: string[]) => releaseCkg(worktree, ...args);
const run = (...args: string[]) => runRelease(worktree, args, { ...env, CKG_LOG_LEVEL: "warn" });

async function serve(command: string[]): Promise<ServerProcess> {
  const server = await startServer(command, { ...env, ...paymentsEnv }, { cwd: worktree });
  servers.push(server);
  await server.waitReady(60_000);
  return server;
}

const payer = privateKeyToAccount(PAYER_KEY);
/** Requests as a paying client sends them; the last paid one is kept, to be sent again after the upgrade. */
let lastPaid: { url: string; method: string; headers: [string, string][]; body: string | null } | undefined;
const recording = async (input: string | URL | Request, init?: RequestInit) => {
  const request = new Request(input as string, init);
  const body = request.body ? await request.text() : null;
  if (request.headers.has("payment-signature")) lastPaid = { url: request.url, method: request.method, headers: [...request.headers.entries()], body };
  return fetch(request.url, { method: request.method, headers: request.headers, body });
};
const paying = () =>
  wrapFetchWithPayment(recording as typeof fetch, new x402Client().register("eip155:*", new ExactEvmScheme(toClientEvmSigner(payer, createPublicClient({ chain: baseSepolia, transport: http(chain.rpcUrl) })))));

async function ok(response: Response): Promise<any> {
  const body = await response.json();
  if (response.status !== 200) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** What the old server answered, to be compared with the new one's answers. */
const before: { signals?: any; changes?: any; subscription?: { id: string; secret: string; filters: unknown }; ledger?: Record<string, number>; snapshot?: string; paid?: typeof lastPaid } = {};

beforeAll(async () => {
  checkOut(release, worktree);

  chain = await startChain();
  await chain.mint(payer.address, 100_000_000n); // 100 USDC
  const keyFile = join(tempDir("ckg-key-"), "settler.key");
  writeFileSync(keyFile, SETTLER_KEY, { mode: 0o600 });
  paymentsEnv = { CKG_PAY_TO: PAY_TO, CKG_NETWORK: "eip155:84532", CKG_RPC_URL: chain.rpcUrl, CKG_SETTLEMENT_KEY_FILE: keyFile };

  // The previous release writes the directory: a build, a scan, and a server taking payments.
  run("build", "--data-dir", root, "--scale", "5000");
  run("scan", "--data-dir", root);
  const old = await serve(previousCkg("serve", "--data-dir", root, "--port", "0"));
  const made = await ok(await paying()(`${old.url}/api/subscriptions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ filters: { signals: { min_score: 0 } } }) }));
  before.subscription = { id: made.subscription_id, secret: made.secret, filters: made.filters };
  before.changes = await ok(await paying()(`${old.url}/api/changes?since_hours=8760&limit=50`));
  before.paid = lastPaid;
  before.signals = await ok(await fetch(`${old.url}/api/insights/signals?qualification=all&limit=500`));
  before.ledger = (await ok(await fetch(`${old.url}/readyz`))).payments.ledger;
  before.snapshot = currentSnapshotId(dataDir(root))!;
  await old.stop();
}, 240_000);

afterAll(async () => {
  for (const server of servers) if (server.process.exitCode === null) await server.stop();
  await chain?.stop();
  if (existsSync(worktree)) removeCheckout(worktree);
  rmSync(root, { recursive: true, force: true });
});

describe(`a data directory written by the previous release (${release.version}, commit ${release.commit})`, () => {
  test("had signals, changes, a subscription and ledger rows, and no format record", () => {
    expect(before.signals.signals.length).toBeGreaterThan(0);
    expect(before.changes.changes.length).toBeGreaterThan(0);
    expect(before.ledger).toEqual({ settled: 2 });
    expect(existsSync(dataDir(root).formats)).toBe(false);
  });

  test(`is served by this ckg (${VERSION}) with no rebuild, and everything it held survives`, async () => {
    const server = await serve(selfCommand("serve", "--data-dir", root, "--port", "0"));
    try {
      const ready = await ok(await fetch(`${server.url}/readyz`));
      expect(ready.snapshot.id).toBe(before.snapshot!); // no rebuild: the previous release's snapshot is live
      expect(ready.payments.ledger).toEqual(before.ledger!);

      // Every signal it held, as it held it; this release adds each type's measured quality (additive).
      const signals = await ok(await fetch(`${server.url}/api/insights/signals?qualification=all&limit=500`));
      for (const s of signals.signals) expect(s.quality).toMatchObject({ measured: expect.any(Boolean), window: expect.any(String) });
      expect({ ...signals, signals: signals.signals.map(({ quality: _, ...rest }: Record<string, unknown>) => rest) }).toEqual(before.signals);
      // The same page of the feed; only the window's start moved with the clock.
      expect({ ...(await ok(await paying()(`${server.url}/api/changes?since_hours=8760&limit=50`))), since: undefined }).toEqual({ ...before.changes, since: undefined });

      const sub = await ok(await fetch(`${server.url}/api/subscriptions/${before.subscription!.id}`, { headers: { authorization: `Bearer ${before.subscription!.secret}` } }));
      expect(sub).toMatchObject({ subscription_id: before.subscription!.id, status: "active", filters: before.subscription!.filters });

      // A payment spent before the upgrade cannot buy again after it: the ledger remembers it.
      const paid = before.paid!;
      const again = await fetch(paid.url.replace(/^http:\/\/[^/]+/, server.url), { method: paid.method, headers: paid.headers, body: paid.body });
      expect(again.status).toBe(402);
      expect(decodePaymentRequiredHeader(again.headers.get("payment-required")!).error).toContain("this payment was already used");
    } finally {
      await server.stop();
    }
    expect(readFormatRecord(dataDir(root))).toEqual({ data_dir: 1, snapshot: SNAPSHOT_FORMAT, search: SEARCH_FORMAT, state: { ...STATE_FORMATS }, written_by: VERSION });
  }, 120_000);
});
