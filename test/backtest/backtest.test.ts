/**
 * `ckg backtest` on real data directories: the replay reads nothing from after its day (a planted
 * future value stays unread), writes nothing that is served (a subscription's stream stays silent
 * while a real scan afterwards reaches it), refuses bad labels and windows before any work, and on
 * the recorded real history (read in place from ../shared/real-history, skipped where absent)
 * catches the March 2023 USDC and DAI depegs a day after their intraday lows.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type LabelFile, LabelError } from "../../src/backtest/labels.ts";
import { WindowError } from "../../src/backtest/replay.ts";
import { runBacktest } from "../../src/backtest/run.ts";
import { openWorld } from "../../src/backtest/world.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { openDuck } from "../../src/store/duckdb.ts";
import { addDays } from "../../src/time.ts";
import { type Running, copyOfFixture, startServices } from "../support/fixture.ts";
import { groundTruth, scan, snapshotOf } from "../signals/support.ts";
import { until } from "../support/until.ts";

const HISTORY = join(import.meta.dir, "../../../shared/real-history");
const depeg = DETECTORS.filter((d) => d.slug === "stablecoin-depeg");
const labels = (lines: object[], name = "test.jsonl"): LabelFile[] => [{ name, text: lines.map((l) => JSON.stringify(l)).join("\n") }];

/** A stablecoin of the fixture world with a price on the as-of day, and that day. */
async function someStablecoin(root: string): Promise<{ entity: string; table: string; asOf: string }> {
  const { path, manifest } = snapshotOf(root);
  const table = manifest.timeseries.find((t) => t.kind === "stablecoin")!.name;
  const duck = await openDuck({ path: join(path, manifest.timeseries_db), settings: { access_mode: "READ_ONLY" } });
  const c = await duck.connect();
  const rows = (await c.runAndReadAll(`SELECT entity_id, max(date)::VARCHAR AS d FROM ${table} WHERE price BETWEEN 0.999 AND 1.001 AND "circulatingUsd" > 1e7 GROUP BY 1 ORDER BY 1 LIMIT 1`)).getRowObjectsJson();
  c.closeSync();
  duck.closeSync();
  return { entity: String(rows[0]!.entity_id), table, asOf: String(rows[0]!.d) };
}

describe("no look-ahead", () => {
  test("a depeg planted two days after the replayed days is unread until its day", async () => {
    const root = await copyOfFixture();
    const { entity, table, asOf } = await someStablecoin(root);
    const { path, manifest } = snapshotOf(root);
    const from = addDays(asOf, -4);
    const planted = addDays(from, 2);
    // Rewrite the series in place: the day after `from + 1` becomes a 50% depeg.
    const duck = await openDuck({ path: join(path, manifest.timeseries_db) });
    const c = await duck.connect();
    await c.run(`UPDATE ${table} SET price = 0.5 WHERE entity_id = '${entity}' AND date = DATE '${planted}'`);
    c.closeSync();
    duck.closeSync();

    const world = await openWorld({ kind: "snapshot", dir: dataDir(root) }, { memoryLimit: "1GB" });
    try {
      for (const day of [from, addDays(from, 1)]) {
        await world.cutAt(day);
        const seen = (await world.c.runAndReadAll(`SELECT max(date)::VARCHAR AS last, count(*) FILTER (WHERE price = 0.5)::INTEGER AS planted FROM stablecoin`)).getRowObjectsJson()[0]!;
        expect(seen).toEqual({ last: day, planted: 0 });
      }
    } finally {
      world.close();
    }
    const { replay } = await runBacktest({ source: { kind: "snapshot", dir: dataDir(root) }, from, to: planted, detectors: depeg, labelFiles: labels([{ id: "p", entity, day: planted, kind: "depeg", source: "planted by this test" }]) });
    const onEntity = replay.fires.filter((f) => f.entities.includes(entity));
    expect(onEntity.map((f) => f.day)).toEqual([planted]);
    expect(replay.days).toBe(3);
  });
});

describe("a backtest touches nothing that is served", () => {
  let run: Running;
  beforeAll(async () => {
    run = await startServices({ push_poll_ms: 50 });
  });
  afterAll(() => run.close());

  test("with a subscription's stream open, a backtest finds signals while signals, outbox and stream stay as they were: the stream's first events are a later real scan's, exactly", async () => {
    const made = (await (await run.request("POST", "/api/subscriptions", { filters: { signals: {} }, stream: true })).json()) as { subscription_id: string; secret: string };
    const response = await run.request("GET", `/api/events?subscription_id=${made.subscription_id}`, undefined, { authorization: `Bearer ${made.secret}` });
    const reader = response.body!.getReader();
    const received: string[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        buffer += decoder.decode(chunk.value, { stream: true });
        const lines = buffer.split("\n");
        buffer = lines.pop()!;
        for (const line of lines) if (line.startsWith("data: ")) received.push((JSON.parse(line.slice(6)) as { data: { signal_id: string } }).data.signal_id);
      }
    })();
    const count = async () => {
      const [row] = await run.services.state.all<{ signals: number; events: number; moves: number; scans: number }>(
        "SELECT (SELECT count(*) FROM signals) AS signals, (SELECT count(*) FROM signal_events) AS events, (SELECT count(*) FROM signal_moves) AS moves, (SELECT count(*) FROM scans) AS scans",
        [],
      );
      return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v)]));
    };
    const before = await count();
    const asOf = snapshotOf(run.dir).manifest.as_of.slice(0, 10);
    const planted = groundTruth(run.dir).anomalies[0]!;
    const { replay } = await runBacktest({
      source: { kind: "snapshot", dir: dataDir(run.dir) },
      from: addDays(asOf, -2),
      to: asOf,
      labelFiles: labels([{ id: "gt", entity: planted.entities[0], day: asOf, kind: "depeg", source: "the fixture's ground truth" }]),
    });
    expect(replay.fires.length).toBeGreaterThan(0);
    expect(await count()).toEqual(before);

    // A real scan: the stream carries its events and nothing before them (a backtest's event
    // would have come first). Waited on the count the scan wrote, not on a clock.
    const { scan_id: scanId } = await scan(run.dir, run.services.state, asOf);
    const events = await run.services.state.all<{ signal_id: string }>("SELECT signal_id FROM signal_events WHERE scan_id = ? ORDER BY id", [scanId]);
    expect(events.length).toBeGreaterThan(0);
    await until(`the scan's ${events.length} events on the stream`, 60_000, () => received.length >= events.length, { seen: () => received.length });
    expect(received).toEqual(events.map((e) => e.signal_id));
    await reader.cancel();
    await reading.catch(() => undefined);
  });
});

describe("refused before any work", () => {
  const world = async () => ({ kind: "snapshot" as const, dir: dataDir(await copyOfFixture()) });

  test("a malformed label file names its line", () => {
    const bad: LabelFile[] = [{ name: "events.jsonl", text: `// a comment\n${JSON.stringify({ id: "a", entity: "token/x", day: "2023-03-11", kind: "depeg", source: "a source long enough" })}\n{"id": "b", "entity": "token/y", "day": "2023-02-30", "kind": "depeg", "source": "a source long enough"}` }];
    return expect(runBacktest({ source: { kind: "snapshot", dir: dataDir("/nonexistent") }, from: "2023-01-01", to: "2023-01-02", labelFiles: bad })).rejects.toThrow(
      new LabelError("events.jsonl:3: day: not a calendar day"),
    );
  });

  test("a label of an unknown entity, or a window without history, is an error and no day is replayed", async () => {
    const source = await world();
    let days = 0;
    const onDay = () => void days++;
    await expect(runBacktest({ source, from: "2023-01-01", to: "2023-01-02", onDay, labelFiles: labels([{ id: "u", entity: "token/no-such-token", day: "2023-01-01", kind: "depeg", source: "a source long enough" }]) })).rejects.toThrow(
      /does not have: u \(token\/no-such-token\)/,
    );
    const entity = groundTruth(source.dir.root).anomalies[0]!.entities[0]!;
    await expect(runBacktest({ source, from: "1990-01-01", to: "1990-12-31", onDay, labelFiles: labels([{ id: "k", entity, day: "1990-06-01", kind: "depeg", source: "a source long enough" }]) })).rejects.toThrow(WindowError);
    expect(days).toBe(0);
  });
});

describe.skipIf(!existsSync(HISTORY))("on the recorded real history (../shared/real-history)", () => {
  test("March 2023: the USDC and DAI depegs caught a day after their intraday lows, the BUSD control quiet", async () => {
    const root = await copyOfFixture();
    const { report } = await runBacktest({
      source: { kind: "history", root: HISTORY, base: dataDir(root) },
      from: "2023-02-10",
      to: "2023-03-20",
      labelFiles: [{ name: "data/events/real-incidents.jsonl", text: await Bun.file(join(import.meta.dir, "../../data/events/real-incidents.jsonl")).text() }],
    });
    const depegType = report.types.find((t) => t.slug === "stablecoin-depeg")!;
    expect(depegType.measured).toBe(true);
    const usdc = report.events.find((e) => e.id === "usdc-depeg-2023-03")!;
    const dai = report.events.find((e) => e.id === "dai-depeg-2023-03")!;
    for (const e of [usdc, dai]) expect(e.fired.find((f) => f.type === "stablecoin-depeg")?.screened_days[0]).toBe("2023-03-12");
    expect(usdc.series).toMatchObject({ table: "ts_history_stablecoin", column: "price" });
    expect(report.controls.find((c) => c.id === "busd-wind-down-control-2023-02")).toMatchObject({ in_window: true, held: true });
  });
});
if (!existsSync(HISTORY)) console.warn(`skipped: the recorded history is not at ${HISTORY} (CI has ../shared beside the clone)`);

describe("the command", () => {
  const ckg = (...args: string[]) => {
    const run = Bun.spawnSync(["bun", join(import.meta.dir, "../../src/main.ts"), "backtest", ...args], { stdout: "pipe", stderr: "pipe" });
    return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
  };

  test("a bad label file or a window without history exits 2 with the reason; a good run prints the report", async () => {
    const root = await copyOfFixture();
    const file = join(root, "bad.jsonl");
    writeFileSync(file, `${JSON.stringify({ id: "a", entity: "token/x", day: "2023-13-01", kind: "depeg", source: "a source long enough" })}\n`);
    expect(ckg("--data-dir", root, "--labels", file)).toMatchObject({ code: 2, err: expect.stringContaining(`${file}:1: day: not a calendar day`) });
    const entity = groundTruth(root).anomalies[0]!.entities[0]!;
    writeFileSync(file, `${JSON.stringify({ id: "a", entity, day: "2023-01-01", kind: "depeg", source: "a source long enough" })}\n`);
    const empty = ckg("--data-dir", root, "--labels", file, "--from", "1990-01-01", "--to", "1990-02-01");
    expect(empty.code).toBe(2);
    expect(empty.err).toMatch(/no history in 1990-01-01\.\.1990-02-01: the world's series run \d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}/);
    const asOf = snapshotOf(root).manifest.as_of.slice(0, 10);
    const good = ckg("--data-dir", root, "--labels", file, "--from", addDays(asOf, -1), "--to", asOf, "--types", "stablecoin-depeg,stablecoin-supply-shift", "--json");
    expect(good.code).toBe(0);
    expect(JSON.parse(good.out)).toMatchObject({ window: { from: addDays(asOf, -1), to: asOf, days: 2 }, labels: { count: 1 } });
  });
});
