/**
 * The floors a webhook fan-out is measured against (part of scripts/bench/push.ts), each from this
 * process, the same concurrency per receiver, kept alive:
 * - bare: POSTs to the healthy receivers and nothing else;
 * - bare, the same requests: POSTs to every receiver ckg sends to in the fan-out, in the same
 *   shares (each subscription's receiver in turn), the 503 receivers included: a sender cannot know
 *   before it asks which receiver fails. Hanging receivers are left out: ckg's requests to them
 *   wait behind the ones already hung, and a bare POST to them costs no CPU, only a socket;
 * - with ckg's records: the same POSTs, each delivery first inserted, then claimed in batches and
 *   its outcome written (batched every 10 ms), in a scratch SQLite state database by ckg's own
 *   statements (push/dispatch's insert, push/delivery-record's claim and outcome), and no other ckg
 *   code: what at-least-once delivery on SQLite costs at the least.
 */
import { rmSync } from "node:fs";
import http from "node:http";
import { type Claimed, claimStatement, recordDelivered } from "../../src/push/delivery-record.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";
import { insertRows } from "../../src/store/state.ts";
import { now, type ReceiverKind, type Receivers, until } from "./push-support.ts";

const CLAIM = 512;
const HOLDER = "floor";
/** The lease ckg takes at its default 15 s request time limit (push/deliver.ts: twice it, and 5 s). */
const LEASE_MS = 2 * 15_000 + 5_000;


/**
 * Healthy deliveries per second: `total` POSTs spread over the receivers of `kinds` in turn,
 * `concurrency` in flight to each.
 */
export async function bareFloor(receivers: Receivers, total: number, concurrency: number, kinds: readonly ReceiverKind[] = ["ok"]): Promise<number> {
  let left = total;
  return postAll(receivers, kinds.length === 1 ? "floor" : "floor-same", concurrency, total, async () => (left-- > 0 ? {} : undefined), undefined, undefined, kinds);
}

/** The same, each delivery inserted, claimed and recorded by ckg's statements in a scratch SQLite database. */
export async function recordedFloor(receivers: Receivers, total: number, concurrency: number): Promise<number> {
  const path = `/tmp/ckg-bench-push-floor-${process.pid}.sqlite`;
  const state = openSqliteState(path);
  try {
    const at = new Date().toISOString();
    const made = Array.from({ length: total }, (_, i) => [`sub_floor${String(i).padStart(7, "0")}`, "s1", at, at, 0, "pending"]);
    const started = now();
    await state.batch(insertRows("deliveries", ["subscription_id", "event", "created_at", "next_at", "attempts", "status"], made));
    const queue: Claimed[] = [];
    let claiming: Promise<void> | undefined;
    // Deliveries answered 2xx, written as ckg writes them (recordDelivered) every 10 ms.
    let delivered: Claimed[] = [];
    let flushing: Promise<void> = Promise.resolve();
    const flush = setInterval(() => {
      if (delivered.length === 0) return;
      const batch = recordDelivered(delivered, 200, HOLDER);
      delivered = [];
      flushing = flushing.then(() => state.batch(batch));
    }, 10);
    const next = async (): Promise<Claimed | undefined> => {
      while (queue.length === 0) {
        claiming ??= (async () => {
          const { sql, params } = claimStatement(HOLDER, LEASE_MS, CLAIM);
          queue.push(...(await state.all<Claimed>(sql, params)));
        })().finally(() => (claiming = undefined));
        const before = queue.length;
        await claiming;
        if (queue.length === before && queue.length === 0) return undefined;
      }
      return queue.shift();
    };
    const rate = await postAll(receivers, "floor-records", concurrency, total, next, (d) => delivered.push(d as Claimed), started);
    clearInterval(flush);
    await flushing;
    if (delivered.length > 0) await state.batch(recordDelivered(delivered, 200, HOLDER));
    const done = await state.get<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'delivered'");
    if (done?.n !== total) throw new Error(`push floors: ${done?.n} of ${total} deliveries recorded`);
    return rate;
  } finally {
    await state.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
  }
}

/**
 * Sends each item `next` gives to the receivers of `kinds` in turn (healthy ones by default); the
 * rate is the healthy receivers' arrivals over the time to the last of them.
 */
async function postAll(
  receivers: Receivers,
  id: string,
  concurrency: number,
  total: number,
  next: () => Promise<object | undefined>,
  answered: (item: object) => void = () => {},
  started = now(),
  kinds: readonly ReceiverKind[] = ["ok"],
): Promise<number> {
  const targets = receivers.ports.filter((p) => kinds.includes(p.kind));
  const body = JSON.stringify({ type: "signal.new", timestamp: new Date().toISOString(), data: { signal_id: id, signal_type: "stablecoin-depeg", entities: "[]", score: 80 } });
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: concurrency }));
  let turn = 0;
  const post = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port: targets[index]!.port, path: "/hook", method: "POST", agent: agents[index], headers: { "content-type": "application/json" } }, (response) => {
        response.resume();
        response.on("end", resolve);
      });
      request.on("error", reject);
      request.end(body);
    });
  await Promise.all(
    Array.from({ length: targets.length * concurrency }, async () => {
      for (let item = await next(); item; item = await next()) {
        await post(turn++ % targets.length);
        answered(item);
      }
    }),
  );
  for (const agent of agents) agent.destroy();
  await until(`the ${id} POSTs at the receivers`, () => kinds.reduce((sum, kind) => sum + receivers.count(kind, id), 0) >= total);
  return receivers.count("ok", id) / ((Math.max(...receivers.arrivals.ok.get(id)!) - started) / 1000);
}
