/**
 * The push targets, measured with receivers that misbehave (part of scripts/bench/push.ts):
 * `receivers` receivers on 127.0.0.1, a share of them hanging until the sender's time limit and a
 * share answering 503, every subscription's webhook on one of them in turn.
 *  - latency: `latencySubscriptions` subscriptions, `rounds` events committed one at a time; commit
 *    to webhook p50 / p99 over every healthy receiver's deliveries, and the worst receiver's p99;
 *  - fan-out: subscriptions added up to `fanout` (straight into the state store, in one
 *    transaction, as the subscribe operation writes them), one event; healthy deliveries per second
 *    from the commit to the last, against the floors measured right after in the same run
 *    (push-floors.ts: bare POSTs to the healthy receivers alone; bare POSTs of the same requests,
 *    the 503 receivers' included; the healthy ones' with ckg's records); the server's RSS (all its
 *    processes) at its peak.
 */
import { cpSync, rmSync } from "node:fs";
import { join } from "node:path";
import { encodeCursor } from "../../src/push/events.ts";
import { headCursor } from "../../src/push/feed.ts";
import { selfCommand } from "../../src/runtime.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { insertRows, type SqlValue, type StateStore } from "../../src/store/state.ts";
import { startServer } from "../../test/support/server.ts";
import { bareFloor, recordedFloor } from "./push-floors.ts";
import { commitEvent, cpuMs, type Receivers, rssMiB, startReceivers, until } from "./push-support.ts";
import { percentile } from "./stats.ts";

export interface TargetOptions {
  world: string;
  receivers: number;
  hangShare: number;
  failShare: number;
  latencySubscriptions: number;
  rounds: number;
  fanout: number;
  concurrency: number;
  timeoutMs: number;
}

const progress = (text: string) => process.stderr.write(`push targets: ${text}\n`);

export async function measureTargets(o: TargetOptions): Promise<[string, string][]> {
  const hang = Math.round(o.receivers * o.hangShare);
  const fail = Math.round(o.receivers * o.failShare);
  const receivers = await startReceivers(o.receivers - hang - fail, hang, fail);
  progress(`receivers on ${receivers.ports.map((p) => `${p.port} ${p.kind}`).join(", ")}`);
  const dir = `/tmp/ckg-bench-push-targets-${process.pid}`;
  cpSync(o.world, dir, { recursive: true });
  const server = await startServer(selfCommand("serve", "--data-dir", dir, "--port", "0"), {
    CKG_LOG_LEVEL: "info", // the server says it is ready at info
    CKG_FIRST_SCAN: "false",
    CKG_SCAN_CRON: "off",
    CKG_RATE_LIMIT_PER_MINUTE: "0",
    CKG_WEBHOOK_ALLOW_PRIVATE: "true",
    CKG_WEBHOOK_CONCURRENCY: String(o.concurrency),
    CKG_WEBHOOK_TIMEOUT_MS: String(o.timeoutMs),
  });
  const state: StateStore = openSqliteState(join(dir, "state.sqlite"));
  const rows: [string, string][] = [];
  const label = `${o.receivers} receivers (${hang} hang until the ${o.timeoutMs / 1000} s limit, ${fail} answer 503), ${o.concurrency} per receiver`;
  try {
    await server.waitReady(300_000);
    progress(`server ready at ${server.url}`);
    // One subscription over HTTP: the row every other is a copy of (its own id and receiver).
    const made = await fetch(`${server.url}/api/subscriptions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ filters: { signals: {} }, webhook_url: url(receivers, 0), stream: false }),
    });
    if (made.status !== 200) throw new Error(`subscribe: ${made.status} ${await made.text()}`);
    const { subscription_id: first } = (await made.json()) as { subscription_id: string };
    const template = (await state.get<Record<string, SqlValue>>("SELECT * FROM subscriptions WHERE subscription_id = ?", [first]))!;
    let count = 1;
    const addUpTo = async (total: number) => {
      const columns = Object.keys(template);
      await state.transaction(
        async (tx) => {
          const start = encodeCursor(await headCursor(tx));
          const made: SqlValue[][] = [];
          for (; count < total; count++) {
            const row: Record<string, SqlValue> = { ...template, subscription_id: `sub_bench${String(count).padStart(7, "0")}`, webhook_url: url(receivers, count), start_cursor: start };
            made.push(columns.map((c) => row[c] ?? null));
          }
          await tx.batch(insertRows("subscriptions", columns, made));
        },
        { lock: "push-dispatch" },
      );
    };
    const kindsOf = (total: number) => Array.from({ length: total }, (_, i) => receivers.ports[i % receivers.ports.length]!.kind);
    const healthyOf = (total: number) => kindsOf(total).filter((k) => k === "ok").length;

    // Latency: one event at a time.
    await addUpTo(o.latencySubscriptions);
    const latencies: number[] = [];
    const perReceiver = new Map<number, number[]>();
    const healthy = healthyOf(o.latencySubscriptions);
    for (let r = 0; r < o.rounds; r++) {
      await Bun.sleep(Math.random() * 250);
      const id = `latency-${r}`;
      progress(`latency round ${r + 1} of ${o.rounds}`);
      const committed = await commitEvent(state, id);
      await until(`round ${r}: ${healthy} healthy webhooks`, () => receivers.count("ok", id) >= healthy, 120_000);
      latencies.push(...receivers.arrivals.ok.get(id)!.map((t) => t - committed));
      for (const { port, kind } of receivers.ports) {
        if (kind !== "ok") continue;
        const list = perReceiver.get(port) ?? [];
        list.push(...(receivers.byPort.get(port)?.get(id) ?? []).map((t) => t - committed));
        perReceiver.set(port, list);
      }
    }
    const worst = Math.max(...[...perReceiver.values()].map((l) => percentile(l, 99)));
    rows.push(
      [`${label}: ${o.latencySubscriptions} subscriptions, ${o.rounds} events: commit to webhook p50 / p99, healthy receivers (ms)`, `${percentile(latencies, 50).toFixed(0)} / ${percentile(latencies, 99).toFixed(0)}`],
      ["  the worst healthy receiver's p99 (ms)", worst.toFixed(0)],
    );

    // Fan-out: every subscription on one event.
    await addUpTo(o.fanout);
    progress(`fan-out to ${o.fanout} subscriptions`);
    const fanHealthy = healthyOf(o.fanout);
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.process.pid))), 100);
    const cpuBefore = { server: cpuMs(server.process.pid), receivers: cpuMs(receivers.pid) };
    const committed = await commitEvent(state, "fanout");
    await until(`${fanHealthy} healthy webhooks of the fan-out`, () => receivers.count("ok", "fanout") >= fanHealthy);
    clearInterval(sampler);
    const cpuUsed = { server: cpuMs(server.process.pid) - cpuBefore.server, receivers: cpuMs(receivers.pid) - cpuBefore.receivers };
    const got = receivers.arrivals.ok.get("fanout")!;
    const ckgRate = fanHealthy / ((Math.max(...got) - committed) / 1000);
    rows.push(
      [`${label}: ${o.fanout} subscriptions on one event: healthy webhooks per second, commit to last`, ckgRate.toFixed(0)],
      ["  commit to first healthy webhook (ms)", (Math.min(...got) - committed).toFixed(0)],
      ["  503 receivers' first attempts / hung receivers' requests by then", `${receivers.count("fail", "fanout")} / ${receivers.count("hang", "fanout")}`],
      ["  server RSS, all processes: peak during the fan-out / after (MiB)", `${peak.toFixed(0)} / ${rssMiB(server.process.pid).toFixed(0)}`],
      ["  CPU per delivery attempt, commit to last: the server / the receivers (µs)", `${((cpuUsed.server * 1000) / sentBy(receivers)).toFixed(0)} / ${((cpuUsed.receivers * 1000) / sentBy(receivers)).toFixed(0)}`],
    );
    progress("the bare-POST floor");
    const floorCpu = { bench: process.cpuUsage(), receivers: cpuMs(receivers.pid) };
    const floor = await bareFloor(receivers, fanHealthy, o.concurrency);
    const floorUsed = { bench: process.cpuUsage(floorCpu.bench), receivers: cpuMs(receivers.pid) - floorCpu.receivers };
    rows.push(
      [`  floor: ${fanHealthy} bare POSTs to the same healthy receivers, ${o.concurrency} each, kept alive (per second)`, floor.toFixed(0)],
      [
        "  the floor's CPU per POST: the sender (this process, reading the receivers' reports too) / the receivers (µs)",
        `${((floorUsed.bench.user + floorUsed.bench.system) / fanHealthy).toFixed(0)} / ${((floorUsed.receivers * 1000) / fanHealthy).toFixed(0)}`,
      ],
      ["  ckg / floor (target >= 0.8)", (ckgRate / floor).toFixed(2)],
    );
    progress("the bare-POST floor of the same requests");
    const answering = kindsOf(o.fanout).filter((k) => k !== "hang").length;
    const same = await bareFloor(receivers, answering, o.concurrency, ["ok", "fail"]);
    rows.push(
      [`  floor, the same requests: ${answering} bare POSTs to the healthy and the 503 receivers, in ckg's shares (healthy per second)`, same.toFixed(0)],
      ["  ckg / the floor of the same requests", (ckgRate / same).toFixed(2)],
    );
    progress("the floor with ckg's records");
    const recordedCpu = process.cpuUsage();
    const recorded = await recordedFloor(receivers, fanHealthy, o.concurrency);
    const recordedUsed = process.cpuUsage(recordedCpu);
    rows.push(
      [`  floor with ckg's records: the same POSTs, each delivery inserted, claimed and recorded in SQLite by ckg's statements (per second)`, recorded.toFixed(0)],
      ["  its CPU per POST, the sender with its records (µs)", ((recordedUsed.user + recordedUsed.system) / fanHealthy).toFixed(0)],
      ["  ckg / the floor with records", (ckgRate / recorded).toFixed(2)],
    );
  } finally {
    await state.close();
    await server.stop();
    receivers.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** Requests the receivers saw for the fan-out, whatever they answered. */
function sentBy(receivers: Receivers): number {
  return receivers.count("ok", "fanout") + receivers.count("fail", "fanout") + receivers.count("hang", "fanout");
}

function url(receivers: Receivers, i: number): string {
  return `http://127.0.0.1:${receivers.ports[i % receivers.ports.length]!.port}/hook`;
}
