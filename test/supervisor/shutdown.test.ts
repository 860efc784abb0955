/**
 * Shutdown under load, with real processes: SIGTERM while 24 clients send search (meaning
 * questions, through the vector scan workers), SQL and SPARQL, again and again: every time the
 * server drains and exits 0 with nothing on stderr but log lines (no native abort, no panic).
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { selfCommand } from "../../src/runtime.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { startServer } from "../support/server.ts";
import { until } from "../support/until.ts";

const TRIES = 5;
let dir: string;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WORDS = ["dex", "bridge", "yield", "oracle", "dao", "lending", "perp", "vault"];
function requestBody(n: number): [string, unknown] {
  switch (n % 3) {
    case 0:
      return ["/api/search", { query: `${WORDS[n % WORDS.length]} protocol on ethereum ${n}`, limit: 20 }];
    case 1:
      return ["/api/timeseries", { sql_query: `SELECT entity_id, avg("currentPrice") AS p FROM ts_synthetic_token GROUP BY 1 ORDER BY p DESC LIMIT ${1 + (n % 50)}` }];
    default:
      return ["/api/sparql", { query: `SELECT ?s ?n WHERE { ?s <https://schema.org/name> ?n } LIMIT ${1 + (n % 500)}` }];
  }
}

test(`SIGTERM under search, SQL and SPARQL load, ${TRIES} times: always a drained exit 0`, async () => {
  dir = await copyOfFixture();
  for (let t = 0; t < TRIES; t++) {
    const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), { CKG_LOG_LEVEL: "info", CKG_FIRST_SCAN: "false", CKG_SCAN_CRON: "off", CKG_RATE_LIMIT_PER_MINUTE: "0" });
    await server.waitReady(60_000);
    let stop = false;
    let signalled = false;
    const answered = [0, 0, 0]; // search, SQL, SPARQL
    const failedBeforeSignal: string[] = [];
    const clients = Array.from({ length: 24 }, async (_, i) => {
      for (let n = i * 1000; !stop; n++) {
        const [path, body] = requestBody(n);
        try {
          const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
          await response.arrayBuffer();
          answered[n % 3]!++;
        } catch (error) {
          // Refused once the server stopped listening; before the signal, a failure is a fault.
          if (!signalled) failedBeforeSignal.push(`${path}: ${(error as Error).message}`);
          await Bun.sleep(5); // a refused client does not spin
        }
      }
    });
    // Under load: every kind of request answered a few times over before the signal.
    await until("search, SQL and SPARQL each answered 10 times", 60_000, () => answered.every((n) => n >= 10), { seen: () => answered });
    signalled = true;
    server.process.kill("SIGTERM");
    const code = await server.process.exited;
    stop = true;
    await Promise.all(clients);
    await server.drained(); // the last of its log lines and stderr
    const stderr = server.stderr();
    const faults = stderr.match(/.*(panic|terminate called|Napi::Error|Segmentation).*/g) ?? [];
    if (failedBeforeSignal.length || code !== 0 || faults.length) {
      // What a failing run needs to be understood where only the test's output is kept (CI).
      const notLogLines = stderr.split("\n").filter((l) => l && !l.startsWith("{"));
      console.error(JSON.stringify({ try: t, code, signal: server.process.signalCode, answered, failedBeforeSignal: failedBeforeSignal.slice(0, 5), stderr: notLogLines.slice(-40), lastLines: server.lines().slice(-15) }, null, 1));
    }
    expect(failedBeforeSignal).toEqual([]);
    expect({ try: t, code, signal: server.process.signalCode }).toEqual({ try: t, code: 0, signal: null });
    expect(faults).toEqual([]);
    expect(server.lines().some((l) => l.msg === "stopped")).toBe(true);
  }
}, 300_000);
