/**
 * @module ingest/providers/coingecko/parse-charts
 * Daily `token` rows: every saved chart answer of a coin merged by day (the day's last point), and
 * each day's market record for the supply figures a chart lacks.
 */
import { dayOf, parseEach, zodIssue } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput, SeriesRow } from "../../records.ts";
import { P, parseChartKey, tokenKey } from "./keys.ts";
import { load } from "./saved.ts";
import { chartSchema, finiteOrNull, type Market, pointSchema, positiveOrNull } from "./schemas.ts";

type DayValues = { price: number | null; marketCap: number | null; volume: number | null };

/** One value per UTC day, the last of the day; malformed points rejected. */
function lastOfDay(points: unknown[] | undefined, what: string, out: ProviderOutput, into: Map<string, Map<string, [number, number]>>, field: string): void {
  for (const [ms, value] of parseEach(points ?? [], pointSchema, (point, issue) => out.reject(what, `${field} point ${JSON.stringify(point)}: ${issue}`))) {
    if (value === null || !Number.isFinite(value)) continue;
    const day = dayOf(ms);
    if (!day) continue;
    let byField = into.get(day);
    if (!byField) into.set(day, (byField = new Map()));
    const previous = byField.get(field);
    if (!previous || previous[0] <= ms) byField.set(field, [ms, value]);
  }
}

/** Every saved chart answer per coin, merged by day: later ranges win, each keeps only its own days. */
export function loadCharts(raw: RawStore, out: ProviderOutput): Map<string, Map<string, DayValues>> {
  const answers = raw
    .keys(P, "market_chart/")
    .map((k) => ({ k, ...parseChartKey(k) }))
    .filter((a): a is { k: string; id: string; from: string; to: string } => {
      if (a.id === undefined) out.reject(a.k, "not a market_chart/<id>/<from>_<to> key");
      return a.id !== undefined;
    })
    .sort((a, b) => (a.to !== b.to ? (a.to < b.to ? -1 : 1) : a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  const charts = new Map<string, Map<string, DayValues>>();
  for (const a of answers) {
    const answer = load(raw, out, a.k);
    if (answer === undefined) continue;
    const parsed = chartSchema.safeParse(answer);
    if (!parsed.success) {
      out.reject(a.k, `not a market chart: ${zodIssue(parsed.error)}`);
      continue;
    }
    const days = new Map<string, Map<string, [number, number]>>();
    const what = `market_chart ${JSON.stringify(a.id)}`;
    lastOfDay(parsed.data.prices, what, out, days, "price");
    lastOfDay(parsed.data.market_caps, what, out, days, "marketCap");
    lastOfDay(parsed.data.total_volumes, what, out, days, "volume");
    let chart = charts.get(a.id);
    if (!chart) charts.set(a.id, (chart = new Map()));
    for (const [day, values] of days) {
      if (day < a.from || day > a.to) continue;
      chart.set(day, {
        price: finiteOrNull(values.get("price")?.[1]),
        marketCap: positiveOrNull(values.get("marketCap")?.[1]),
        volume: finiteOrNull(values.get("volume")?.[1]),
      });
    }
  }
  return charts;
}

export function emitRows(out: ProviderOutput, charts: Map<string, Map<string, DayValues>>, byDay: Map<string, Map<string, Market>>): void {
  const rows = new Map<string, Map<string, SeriesRow>>();
  const rowFor = (id: string, day: string) => {
    let coin = rows.get(id);
    if (!coin) rows.set(id, (coin = new Map()));
    let row = coin.get(day);
    if (!row) {
      row = { entity_id: tokenKey(id), date: day, currentPrice: null, marketCap: null, totalVolume: null, circulatingSupply: null, totalSupply: null };
      coin.set(day, row);
    }
    return row;
  };
  for (const [id, chart] of charts) {
    for (const [day, v] of chart) {
      const row = rowFor(id, day);
      row.currentPrice = v.price;
      row.marketCap = v.marketCap;
      row.totalVolume = v.volume;
      row.circulatingSupply = v.price !== null && v.price > 0 && v.marketCap !== null ? v.marketCap / v.price : null;
    }
  }
  // A day's market snapshot: supply figures (the chart has none), and whatever the chart lacks.
  for (const [day, records] of byDay) {
    for (const m of records.values()) {
      const row = rowFor(m.id, day);
      row.currentPrice ??= finiteOrNull(m.current_price);
      row.marketCap ??= positiveOrNull(m.market_cap);
      row.totalVolume ??= finiteOrNull(m.total_volume);
      row.circulatingSupply = positiveOrNull(m.circulating_supply) ?? row.circulatingSupply ?? null;
      row.totalSupply = positiveOrNull(m.total_supply);
    }
  }
  for (const id of [...rows.keys()].sort()) {
    const coin = rows.get(id)!;
    for (const day of [...coin.keys()].sort()) out.row("token", coin.get(day)!);
  }
}
