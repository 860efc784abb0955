/**
 * @module ingest/providers/defillama/parse-emissions
 * Token unlocks from DefiLlama's unlock schedules (`emission/<slug>`, the emissions adapters'
 * output on the datasets host): a vesting schedule per token, and an `unlocks` row per day and
 * allocation group with the tokens unlocked that day.
 *
 * A schedule's `documentedData.data` lists each tranche (its `label`) with the cumulative amount
 * unlocked each day, past and scheduled; a day's unlock is the rise over the day before, so
 * cliffs and linear vesting read alike. `metadata.categories` says which tranche is whose
 * (insiders, privateSale, airdrop ...), mapped to the kind's allocation groups. A schedule without
 * tranches falls back on its cliff events (`metadata.events`).
 *
 * Value and share of circulating supply are computed for scheduled days only, at the token's
 * price and circulating supply in CoinGecko's markets answer of the same run (today's figures
 * speak for the future, not for the past); without one they stay null.
 */
import { z } from "zod";
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key } from "../../records.ts";
import { dayOf, parseEach } from "../../connector.ts";
import { latestMarkets } from "../coingecko/markets.ts";
import { addDays } from "../../../time.ts";
import { geckoKey, P } from "./keys.ts";
import { attributes, loadSaved, usable } from "./parse-common.ts";
import { record } from "./schemas.ts";

const ALLOCATION_GROUP: Record<string, string> = {
  insiders: "team",
  privatesale: "investors",
  publicsale: "investors",
  airdrop: "ecosystem",
  farming: "ecosystem",
  liquidity: "ecosystem",
  staking: "ecosystem",
  noncirculating: "treasury",
};
/** Past days of a schedule kept: enough for a month's look back. */
const PAST_DAYS = 60;
/** Scheduled days kept ahead. */
const AHEAD_DAYS = 366;

const numberish = z.union([z.number(), z.string()]);
const trancheSchema = z.object({ label: z.string().min(1), data: z.array(z.object({ timestamp: numberish, unlocked: z.number().nullish() })) });
const eventSchema = z.object({ timestamp: numberish, noOfTokens: z.array(z.number()), category: z.string().nullish(), unlockType: z.string().nullish() });
const scheduleSchema = z.object({
  documentedData: z.object({ data: z.array(z.unknown()).nullish() }).nullish(),
  metadata: z
    .object({
      token: z.string().nullish(),
      name: z.string().nullish(),
      gecko_id: z.string().nullish(),
      total: z.number().nullish(),
      categories: z.record(z.string(), z.array(z.string())).nullish(),
      events: z.array(z.unknown()).nullish(),
    })
    .nullish(),
  supplyMetrics: z.object({ maxSupply: z.number().nullish() }).nullish(),
  gecko_id: z.string().nullish(),
  name: z.string().nullish(),
});

export function parseEmissions(raw: RawStore, out: ProviderOutput): void {
  const markets = new Map(latestMarkets(raw).map((m) => [m.id, m]));
  for (const rawKey of raw.keys(P, "emission/")) {
    const slug = rawKey.slice("emission/".length);
    const saved = loadSaved(raw, out, rawKey);
    if (!saved) continue;
    // The paid host wraps the same schedule in `body`.
    const body = record(saved.body).body !== undefined ? record(saved.body).body : saved.body;
    const parsed = scheduleSchema.safeParse(body);
    if (!parsed.success) {
      out.reject(rawKey, "not an unlock schedule");
      continue;
    }
    const { metadata, documentedData, supplyMetrics } = parsed.data;
    const gecko = /^coingecko:(.+)$/.exec(metadata?.token ?? "")?.[1] ?? usable(parsed.data.gecko_id ?? metadata?.gecko_id);
    if (!gecko) {
      out.leaveOut(`unlock schedule ${slug}`, "token is not named by a CoinGecko id");
      continue;
    }
    const groupOf = new Map<string, string | null>();
    for (const [category, labels] of Object.entries(metadata?.categories ?? {})) for (const label of labels) groupOf.set(label, ALLOCATION_GROUP[category.toLowerCase()] ?? null);
    const daily = new Map<string, { day: string; group: string | null; amount: number }>();
    const addDay = (day: string, group: string | null, amount: number) => {
      if (amount <= 0 || day < addDays(saved.day, -PAST_DAYS) || day > addDays(saved.day, AHEAD_DAYS)) return;
      const at = `${day} ${group}`;
      const entry = daily.get(at) ?? { day, group, amount: 0 };
      entry.amount += amount;
      daily.set(at, entry);
    };
    const tranches = [...parseEach(documentedData?.data ?? [], trancheSchema, (_, issue) => out.reject(`${rawKey} tranche`, issue))];
    for (const tranche of tranches) {
      let before: number | undefined;
      const points = tranche.data.map((p) => ({ day: dayOf(p.timestamp), unlocked: p.unlocked ?? 0 })).filter((p): p is { day: string; unlocked: number } => p.day !== undefined);
      for (const point of points.sort((a, b) => (a.day < b.day ? -1 : 1))) {
        if (before !== undefined) addDay(point.day, groupOf.get(tranche.label) ?? null, point.unlocked - before);
        before = point.unlocked;
      }
    }
    if (tranches.length === 0) {
      for (const event of parseEach(metadata?.events ?? [], eventSchema, (_, issue) => out.reject(`${rawKey} event`, issue))) {
        const day = dayOf(event.timestamp);
        if (day && event.unlockType !== "linear") addDay(day, ALLOCATION_GROUP[(event.category ?? "").toLowerCase()] ?? null, event.noOfTokens.reduce((sum, n) => sum + n, 0));
      }
    }
    const entries = [...daily.values()].sort((a, b) => (a.day === b.day ? String(a.group).localeCompare(String(b.group)) : a.day < b.day ? -1 : 1));
    if (entries.length === 0) continue;
    const token = geckoKey(gecko);
    const schedule = key("VestingSchedule", P, gecko);
    const name = usable(metadata?.name ?? parsed.data.name) ?? slug;
    out.entity({
      type: "VestingSchedule",
      keys: [schedule],
      name: `${name} token unlocks`,
      attributes: attributes([
        ["vestingStart", entries[0]!.day],
        ["vestingEnd", entries.at(-1)!.day],
      ]),
      relations: [["vestingOf", token]],
      sameAs: [`https://defillama.com/unlocks/${slug}`],
    });
    const market = markets.get(gecko);
    const price = market?.current_price ?? null;
    const circulating = market?.circulating_supply ?? null;
    const maxSupply = supplyMetrics?.maxSupply ?? metadata?.total ?? null;
    for (const entry of entries) {
      const future = entry.day > saved.day;
      out.row("unlocks", {
        entity_id: token,
        date: entry.day,
        schedule_id: schedule,
        allocation_group: entry.group,
        amount: entry.amount,
        valueUsd: future && price !== null ? entry.amount * price : null,
        shareOfSupply: maxSupply ? entry.amount / maxSupply : null,
        shareOfCirculating: future && circulating ? entry.amount / circulating : null,
      });
    }
  }
}
