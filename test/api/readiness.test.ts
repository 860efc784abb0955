/**
 * /healthz and /readyz answer what /openapi.json says they do (api/readiness), in every state the
 * test can put a server in: ready with payments off, and not started yet with payments on. The
 * schemas refuse a field they do not name, so a part of the state that grows a field fails here
 * until the schema (and with it the console's generated types) says what it is.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { healthSchema, readinessSchema } from "../../src/operations/readiness.ts";
import { silentLogger } from "../../src/log.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { scan, snapshotOf } from "../signals/support.ts";
import { startServices, testConfig } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

const empty = tempDir("ckg-readiness-");
afterAll(() => rmSync(empty, { recursive: true, force: true }));

function parsed(schema: typeof readinessSchema | typeof healthSchema, body: unknown): string[] {
  const result = schema.safeParse(body);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

test("a ready server that has scanned, payments off: 200 with the documented body", async () => {
  const run = await startServices();
  try {
    await scan(run.dir, run.services.state, snapshotOf(run.dir).manifest.as_of.slice(0, 10));
    const health = await run.request("GET", "/healthz");
    expect(parsed(healthSchema, await health.json())).toEqual([]);
    const ready = await run.request("GET", "/readyz");
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { snapshot?: unknown; scans: { recent: unknown[] }; payments: { mode: string } };
    expect(parsed(readinessSchema, body)).toEqual([]);
    expect(body.snapshot).toBeDefined();
    expect(body.scans.recent.length).toBeGreaterThan(0);
    expect(body.payments.mode).toBe("off");
  } finally {
    await run.close();
  }
});

test("a server not started, payments on with a remote facilitator: 503 with the same documented body", async () => {
  const config = testConfig({ data_dir: empty, pay_to: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", facilitator_url: "http://127.0.0.1:9" });
  const services = await Supervisor.open(config, silentLogger);
  try {
    const app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
    const ready = await app.handle(new Request("http://127.0.0.1:8402/readyz"));
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { status: string; payments: { mode: string; facilitator?: string } };
    expect(parsed(readinessSchema, body)).toEqual([]);
    expect(body.status).toBe("starting");
    expect(body.payments).toMatchObject({ mode: "remote", facilitator: "http://127.0.0.1:9" });
  } finally {
    await services.close();
  }
});
