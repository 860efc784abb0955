/**
 * Push delivery, measured (issue 34). Run by hand:
 *   bun scripts/bench/push.ts [--subscriptions 1,100,10000] [--rounds 10] [--streams 100] [--data-dir DIR]
 *                             [--scan-data-dir DIR --scan-scale full]
 *
 * A real `ckg serve` process on a copy of a data directory (default: the small fixture world, built
 * once into /tmp), a webhook receiver in its own process (scripts/bench/push-receiver.ts), and up to
 * `--streams` event-stream readers here. For each count of subscriptions (webhook and stream, every
 * signal), each round commits one signal event into the server's state database from this process,
 * as a scan's child process does (the server hears it by its poll, CKG_PUSH_POLL_MS, default 100),
 * and times from the commit to each webhook's arrival and each stream event's arrival: p50 and p99,
 * and deliveries per second (the subscriptions over the time the last one took). Then the server's
 * memory (all its processes) at the largest count, and the floor: as many bare POSTs to the same
 * receiver from this process. Then the outbox's cost on a scan: apply time of
 * a real scan of the default world, beside the time its signal events alone take to insert.
 */
import { cpSync, readFileSync, readdirSync, rmSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { SignalEvents } from "../../src/signals/outbox.ts";
import { runScan } from "../../src/signals/scan.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { startServer } from "../../test/support/server.ts";
import { percentile, printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    subscriptions: { type: "string", default: "1,100,10000" },
    rounds: { type: "string", default: "10" },
    streams: { type: "string", default: "100" },
    "data-dir": { type: "string", default: "/tmp/ckg-bench-push-world" },
    // The world whose scan measures the outbox's cost, and its scale when it must be built (full: the published size).
    "scan-data-dir": { type: "string" },
    "scan-scale": { type: "string", default: "default" },
  },
});
const counts = values.subscriptions!.split(",").map(Number);
const rounds = Number(values.rounds);
const maxStreams = Number(values.streams);
const world = values["data-dir"]!;
const log = createLogger("warn", 2);
if (!currentSnapshotId(dataDir(world))) await buildSnapshot({ dir: dataDir(world), scale: "default", seed: 42, ontologyNs: "https://ckg.example/ontology#", log });

const now = () => performance.timeOrigin + performance.now();

/** Lines of a child's stdout, handed to `onLine` as they come. */
async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf("\n");
    while (end >= 0) {
      onLine(buffer.slice(0, end));
      buffer = buffer.slice(end + 1);
      end = buffer.indexOf("\n");
    }
  }
}

/** One POST with node:http on a connection of its own, as push/webhook-send.ts sends a webhook. */
function post(port: number, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path: "/hook", method: "POST", agent: false, headers: { "content-type": "application/json" } }, (response) => {
      response.resume();
      response.on("end", resolve);
    });
    request.on("error", reject);
    request.end(body);
  });
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await Bun.sleep(2);
}

/** Resident memory of a process and its children, in MiB (/proc). */
function rssMiB(pid: number): number {
  const own = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean));
  return own + children.reduce((sum, child) => sum + rssMiB(Number(child)), 0);
}

// The receiver: arrivals by signal id.
const receiver = Bun.spawn(["bun", join(import.meta.dir, "push-receiver.ts")], { stdout: "pipe", stderr: "inherit" });
const arrivals = new Map<string, number[]>();
let receiverPort = 0;
const receiverReady = new Promise<void>((resolve) => {
  void readLines(receiver.stdout, (line) => {
    const [first, second] = line.split(" ");
    if (first === "port") {
      receiverPort = Number(second);
      resolve();
      return;
    }
    const list = arrivals.get(first!) ?? [];
    list.push(Number(second));
    arrivals.set(first!, list);
  });
});
await receiverReady;

const dir = `/tmp/ckg-bench-push-${process.pid}`;
cpSync(world, dir, { recursive: true });
const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), {
  CKG_LOG_LEVEL: "info",
  CKG_FIRST_SCAN: "false",
  CKG_SCAN_CRON: "off",
  CKG_RATE_LIMIT_PER_MINUTE: "0",
  CKG_WEBHOOK_ALLOW_PRIVATE: "true",
});
const state = openSqliteState(join(dir, "state.sqlite"));
const rows: [string, string][] = [];
try {
  await server.waitReady(300_000);
  const made: { subscription_id: string; secret: string }[] = [];
  let round = 0;
  for (const count of counts) {
    // Subscriptions up to `count`, over HTTP as a client makes them (payments are off here).
    const subscribeStarted = performance.now();
    while (made.length < count) {
      const batch = Array.from({ length: Math.min(32, count - made.length) }, () =>
        fetch(`${server.url}/api/subscriptions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ filters: { signals: {} }, webhook_url: `http://127.0.0.1:${receiverPort}/hook`, stream: true }),
        }).then(async (r) => {
          if (r.status !== 200) throw new Error(`subscribe: ${r.status} ${await r.text()}`);
          return (await r.json()) as { subscription_id: string; secret: string };
        }),
      );
      made.push(...(await Promise.all(batch)));
    }
    const subscribeMs = performance.now() - subscribeStarted;

    // Stream readers on the first subscriptions.
    const streamArrivals = new Map<string, number[]>();
    const controllers = made.slice(0, Math.min(count, maxStreams)).map((s) => {
      const controller = new AbortController();
      void fetch(`${server.url}/api/events?subscription_id=${s.subscription_id}`, { headers: { authorization: `Bearer ${s.secret}` }, signal: controller.signal })
        .then((r) =>
          readLines(r.body!, (line) => {
            if (!line.startsWith("data: ")) return;
            const id = (JSON.parse(line.slice(6)) as { data: { signal_id: string } }).data.signal_id;
            const list = streamArrivals.get(id) ?? [];
            list.push(now());
            streamArrivals.set(id, list);
          }),
        )
        .catch(() => undefined);
      return controller;
    });
    const streams = controllers.length;

    const webhookLatency: number[] = [];
    const streamLatency: number[] = [];
    const rates: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // A random pause first: a commit right after an arrival would fall just after a poll each time.
      await Bun.sleep(Math.random() * 250);
      const id = `bench-${count}-${r}-${round++}`;
      const events = new SignalEvents({ scanId: "bench", now: new Date().toISOString() });
      events.add("signal.new", { signal_id: id, signal_type: "stablecoin-depeg", entities: "[]", score: 80, severity: "high", qualification: "qualified", data_as_of: "2026-11-26" });
      await state.transaction(async (tx) => tx.batch(events.writes()));
      const committed = now();
      const deadline = performance.now() + 300_000;
      while ((arrivals.get(id)?.length ?? 0) < count || (streamArrivals.get(id)?.length ?? 0) < streams) {
        if (performance.now() > deadline) throw new Error(`round ${r} at ${count}: ${arrivals.get(id)?.length ?? 0} webhooks, ${streamArrivals.get(id)?.length ?? 0} stream events`);
        await Bun.sleep(2);
      }
      const got = arrivals.get(id)!;
      webhookLatency.push(...got.map((t) => t - committed));
      streamLatency.push(...streamArrivals.get(id)!.map((t) => t - committed));
      rates.push(count / ((Math.max(...got) - committed) / 1000));
    }
    for (const c of controllers) c.abort();
    const ms = (samples: number[]) => `${percentile(samples, 50).toFixed(0)} / ${percentile(samples, 99).toFixed(0)}`;
    rows.push(
      [`${count} subscriptions: made over HTTP`, `${((count / subscribeMs) * 1000).toFixed(0)} /s`],
      [`${count} subscriptions: commit to webhook p50 / p99 (ms)`, ms(webhookLatency)],
      [`${count} subscriptions: commit to stream event p50 / p99 (ms, ${streams} streams)`, ms(streamLatency)],
      [`${count} subscriptions: deliveries per second (median of ${rounds} rounds)`, percentile(rates, 50).toFixed(0)],
      [`${count} subscriptions: server RSS, all processes (MiB)`, rssMiB(server.process.pid).toFixed(0)],
    );
  }
  // The floor: the same number of POSTs to the same receiver straight from here, 64 in flight, a
  // connection each (as the sender makes them): no outbox, fan-out, lease or signature.
  const bare = Math.max(...counts);
  const bareStarted = performance.now();
  const bareId = "bare";
  let next = 0;
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (next++ < bare) await post(receiverPort, JSON.stringify({ data: { signal_id: bareId } }));
    }),
  );
  await until(() => (arrivals.get(bareId)?.length ?? 0) >= bare);
  rows.push([`bare: ${bare} POSTs to the receiver, 64 in flight (per second)`, ((bare / (performance.now() - bareStarted)) * 1000).toFixed(0)]);
} finally {
  await state.close();
  await server.stop();
  receiver.kill();
  rmSync(dir, { recursive: true, force: true });
}

// The outbox's cost on a scan: apply time of a real scan, and what its events alone take to insert.
const scanWorld = values["scan-data-dir"] ?? world;
const scanScale = values["scan-scale"] === "full" ? "full" : "default";
if (!currentSnapshotId(dataDir(scanWorld))) await buildSnapshot({ dir: dataDir(scanWorld), scale: scanScale, seed: 42, ontologyNs: "https://ckg.example/ontology#", log });
const scanDir = `/tmp/ckg-bench-push-scan-${process.pid}`;
cpSync(scanWorld, scanDir, { recursive: true });
const scanState = openSqliteState(join(scanDir, "state.sqlite"));
try {
  const report = await runScan({ state: scanState, dir: dataDir(scanDir), narrator: new OfflineNarrator(), log, trigger: "bench" });
  const n = (await scanState.get<{ n: number }>("SELECT count(*) AS n FROM signal_events WHERE scan_id = ?", [report.scan_id]))!.n;
  const columns = "at, type, signal_id, signal_type, entities, score, severity, qualification, data_as_of, scan_id";
  const t0 = performance.now();
  await scanState.transaction((tx) => tx.run(`INSERT INTO signal_events (${columns}) SELECT ${columns} FROM signal_events WHERE scan_id = ?`, [report.scan_id]));
  const eventsMs = performance.now() - t0;
  rows.push(
    [`scan of ${scanWorld}: apply with its outbox (ms, ${n} events)`, String(report.apply_ms)],
    ["its events alone inserted again (ms)", eventsMs.toFixed(1)],
    ["apply without the outbox, estimated (ms)", (report.apply_ms - eventsMs).toFixed(0)],
    ["the outbox's share of the apply", `${((eventsMs / report.apply_ms) * 100).toFixed(1)} %`],
  );
} finally {
  await scanState.close();
  rmSync(scanDir, { recursive: true, force: true });
}
printTable(`push delivery (${rounds} rounds per count, poll ${process.env.CKG_PUSH_POLL_MS ?? 100} ms)`, rows);
