/**
 * Push delivery, measured (delivery latency, fan-out and what a scan's events cost). Run by hand:
 *   bun scripts/bench/push.ts [--parts basic,targets,scan] [--subscriptions 1,100,10000] [--rounds 10] [--streams 100]
 *                             [--data-dir DIR] [--scan-data-dir DIR --scan-scale full]
 *                             [--receivers 20 --hang 0.1 --fail 0.1 --latency-subscriptions 1000 --target-rounds 10
 *                              --fanout 100000 --concurrency 64 --timeout-ms 15000]
 *
 * `targets` checks the delivery targets: receivers that hang and answer 503 beside healthy ones,
 * commit to webhook p99 at the healthy ones, and a fan-out of `--fanout` subscriptions against the
 * bare-POST floor measured in the same run (scripts/bench/push-targets.ts). What follows is
 * `basic`, then `scan`:
 *
 * A real `ckg serve` process on a copy of a data directory (default: the small fixture world, built
 * once into /tmp), a webhook receiver in its own process (scripts/bench/push-receiver.ts), and up to
 * `--streams` event-stream readers here. For each count of subscriptions (webhook and stream, every
 * signal), each round commits one signal event into the server's state database from this process,
 * as a scan's child process does (the server hears it by its poll, CKG_PUSH_POLL_MS, default 100),
 * and times from the commit to each webhook's arrival and each stream event's arrival: p50 and p99,
 * and deliveries per second (the subscriptions over the time the last one took). Then the server's
 * memory (all its processes) at the largest count, and the floor: as many bare POSTs to the same
 * receiver from this process, 64 in flight on kept-alive connections (as ckg sends). Then the
 * outbox's cost on a scan: apply time of a real scan of the default world, beside the time its
 * signal events alone take to insert.
 */
import { cpSync, rmSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { OfflineNarrator } from "../../src/signals/narratives.ts";
import { runScan } from "../../src/signals/scan.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { startServer } from "../../test/support/server.ts";
import { commitEvent, now, readLines, rssMiB, startReceivers, until } from "./push-support.ts";
import { measureTargets } from "./push-targets.ts";
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
    parts: { type: "string", default: "basic,targets,scan" },
    receivers: { type: "string", default: "20" },
    hang: { type: "string", default: "0.1" },
    fail: { type: "string", default: "0.1" },
    "latency-subscriptions": { type: "string", default: "1000" },
    "target-rounds": { type: "string", default: "10" },
    fanout: { type: "string", default: "100000" },
    concurrency: { type: "string", default: "64" },
    "timeout-ms": { type: "string", default: "15000" },
  },
});
const parts = new Set(values.parts!.split(","));
const counts = values.subscriptions!.split(",").map(Number);
const rounds = Number(values.rounds);
const maxStreams = Number(values.streams);
const world = values["data-dir"]!;
const log = createLogger("warn", 2);
if (!currentSnapshotId(dataDir(world))) await buildSnapshot({ dir: dataDir(world), scale: "default", seed: 42, ontologyNs: "https://ckg.example/ontology#", log });

/** One POST with node:http on a kept-alive connection of `agent`, as push/webhook-send.ts sends a webhook. */
function post(port: number, body: string, agent: http.Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: "127.0.0.1", port, path: "/hook", method: "POST", agent, headers: { "content-type": "application/json" } }, (response) => {
      response.resume();
      response.on("end", resolve);
    });
    request.on("error", reject);
    request.end(body);
  });
}

const rows: [string, string][] = [];
if (parts.has("targets")) {
  rows.push(
    ...(await measureTargets({
      world,
      receivers: Number(values.receivers),
      hangShare: Number(values.hang),
      failShare: Number(values.fail),
      latencySubscriptions: Number(values["latency-subscriptions"]),
      rounds: Number(values["target-rounds"]),
      fanout: Number(values.fanout),
      concurrency: Number(values.concurrency),
      timeoutMs: Number(values["timeout-ms"]),
    })),
  );
}

if (parts.has("basic")) {
  // The receiver: one that answers at once.
  const receiver = await startReceivers(1);
  const receiverPort = receiver.ports[0]!.port;
  const arrivals = receiver.arrivals.ok;
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
        const committed = await commitEvent(state, id);
        await until(`round ${r} at ${count}: ${count} webhooks and ${streams} stream events`, () => (arrivals.get(id)?.length ?? 0) >= count && (streamArrivals.get(id)?.length ?? 0) >= streams, 300_000);
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
    // The floor: the same number of POSTs to the same receiver straight from here, 64 in flight on
    // kept-alive connections (as the sender makes them): no outbox, fan-out, lease or signature.
    const bare = Math.max(...counts);
    const bareStarted = performance.now();
    const bareId = "bare";
    let next = 0;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next++ < bare) await post(receiverPort, JSON.stringify({ data: { signal_id: bareId } }), agent);
      }),
    );
    agent.destroy();
    await until("the bare POSTs at the receiver", () => (arrivals.get(bareId)?.length ?? 0) >= bare);
    rows.push([`bare: ${bare} POSTs to the receiver, 64 in flight, kept alive (per second)`, ((bare / (performance.now() - bareStarted)) * 1000).toFixed(0)]);
  } finally {
    await state.close();
    await server.stop();
    receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The outbox's cost on a scan: apply time of a real scan, and what its events alone take to insert.
if (parts.has("scan")) {
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
}
printTable(`push delivery (${rounds} rounds per count, poll ${process.env.CKG_PUSH_POLL_MS ?? 100} ms)`, rows);
