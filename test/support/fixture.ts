/**
 * Test fixtures: a real data directory (the default world at a small scale, built once per test
 * run) and real running services (DuckDB, the state database, graph processes) over it. Nothing
 * here is a stand-in for our own components.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "../../src/supervisor/assemble.ts";
import { type Config, loadConfig } from "../../src/config/config.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { type SnapshotManifest, readManifest } from "../../src/store/manifest.ts";
import { tempDir } from "./temp-dirs.ts";

/** A small world: every kind of entity, builds in about a second. */
export const FIXTURE_SCALE = 8000;
export const FIXTURE_SEED = 7;
/** Pinned so history timestamps are reproducible; tests pass `now` relative to it. */
const FIXTURE_AS_OF = new Date(Date.now() - (Date.now() % 1000));

let built: Promise<string> | undefined;

/** Path of a pristine data directory with one snapshot; built on first use, then shared read-only. */
export function fixtureDataDir(): Promise<string> {
  built ??= (async () => {
    const root = tempDir("ckg-fixture-");
    await buildSnapshot({
      dir: dataDir(root),
      scale: FIXTURE_SCALE,
      seed: FIXTURE_SEED,
      ontologyNs: "https://ckg.example/ontology#",
      asOf: FIXTURE_AS_OF,
      log: silentLogger,
    });
    return root;
  })();
  return built;
}

/** The fixture's live snapshot: its folder and manifest (read-only). */
export async function fixtureSnapshot(): Promise<{ dir: string; manifest: SnapshotManifest }> {
  const root = dataDir(await fixtureDataDir());
  const dir = snapshotPath(root, currentSnapshotId(root)!);
  return { dir, manifest: readManifest(dir) };
}

const worlds = new Map<string, Promise<string>>();

/**
 * The world `npm start` builds (default scale, seed 42), with or without the planted anomalies;
 * built once per test run and shared read-only (copy it to write state).
 */
export function defaultWorldDataDir(options: { plants: boolean } = { plants: true }): Promise<string> {
  const key = options.plants ? "planted" : "clean";
  let world = worlds.get(key);
  if (!world) {
    world = (async () => {
      const root = tempDir(`ckg-default-${key}-`);
      await buildSnapshot({ dir: dataDir(root), scale: "default", seed: 42, ontologyNs: "https://ckg.example/ontology#", plants: options.plants, log: silentLogger });
      return root;
    })();
    worlds.set(key, world);
  }
  return world;
}

/** A private copy of a data directory (tests that write state get their own). */
export function copyOf(source: string): string {
  const target = tempDir("ckg-test-");
  cpSync(source, target, { recursive: true });
  return target;
}

/** A private copy of the fixture data directory (tests that write state get their own). */
export async function copyOfFixture(): Promise<string> {
  return copyOf(await fixtureDataDir());
}

export function testConfig(overrides: Partial<Record<keyof Config, string | number | boolean>> = {}): Config {
  const flags = Object.fromEntries(Object.entries(overrides).map(([k, v]) => [k, String(v)]));
  // Scans run where a test asks for them (signals tests), not behind every test's back.
  return loadConfig({ env: {}, flags: { log_level: "silent", scan_cron: "off", first_scan: "false", ...flags } });
}

export interface Running {
  services: Supervisor;
  app: ReturnType<typeof createServer>;
  dir: string;
  /** app.handle with a JSON body helper. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** Real services on a copy of the fixture, started and ready; `log` receives what they log (nothing by default). */
export async function startServices(overrides: Parameters<typeof testConfig>[0] = {}, log: Logger = silentLogger): Promise<Running> {
  const dir = await copyOfFixture();
  const config = testConfig({ data_dir: dir, ...overrides });
  const services = await Supervisor.open(config, log);
  await services.start();
  const app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
  return {
    services,
    app,
    dir,
    request(method, path, body, headers = {}) {
      const init: RequestInit = { method, headers: { "content-type": "application/json", ...headers } };
      if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body);
      return app.handle(new Request(`http://127.0.0.1:8402${path}`, init));
    },
    async close() {
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Real services on a real port, for clients that speak HTTP themselves: `url` is its base; `close` stops both. */
export async function startListening(overrides: Parameters<typeof testConfig>[0] = {}): Promise<Running & { url: string }> {
  const run = await startServices(overrides);
  run.app.listen({ hostname: "127.0.0.1", port: 0 });
  return {
    ...run,
    url: `http://127.0.0.1:${run.app.server!.port}`,
    async close() {
      await run.app.stop();
      await run.close();
    },
  };
}

/** Reads a JSON response and its status. */
export async function json(response: Response): Promise<{ status: number; body: any; headers: Headers }> {
  return { status: response.status, body: await response.json(), headers: response.headers };
}
