/**
 * @module ingest/providers/defillama/parse-emissions
 * Token unlocks from the pro emissions answer.
 */
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key } from "../../records.ts";
import { dayOf, parseEach } from "../../connector.ts";
import { geckoKey, llamaSlug, P } from "./keys.ts";
import { attributes, label, listOf, loadSaved, usable } from "./parse-common.ts";
import { emissionSchema } from "./schemas.ts";

export const ALLOCATION_GROUP: Record<string, string> = {
  insiders: "team",
  privatesale: "investors",
  publicsale: "investors",
  airdrop: "ecosystem",
  farming: "ecosystem",
  liquidity: "ecosystem",
  noncirculating: "treasury",
};

export function parseEmissions(raw: RawStore, out: ProviderOutput): void {
  const saved = loadSaved(raw, out, "emissions");
  const list = saved && listOf(out, "emissions", saved.body);
  if (!saved || !list) return;
  for (const emission of parseEach(list, emissionSchema, (item, issue) => out.reject(`emission ${label(item, "token", "name")}`, issue))) {
    const gecko = /^coingecko:(.+)$/.exec(emission.token)?.[1] ?? usable(emission.gecko_id);
    if (!gecko) {
      out.reject(`emission ${JSON.stringify(emission.token)}`, "token is not coingecko:<id>");
      continue;
    }
    const token = geckoKey(gecko);
    const schedule = key("VestingSchedule", P, gecko);
    // Several events of a day and group (cliffs of two tranches) are one row.
    const byDayGroup = new Map<string, { day: string; group: string | null; amount: number }>();
    for (const event of emission.events ?? []) {
      const day = dayOf(event.timestamp);
      if (!day) {
        out.reject(`emission ${JSON.stringify(emission.token)} event`, "timestamp: not a time");
        continue;
      }
      const group = ALLOCATION_GROUP[(event.category ?? "").toLowerCase()] ?? null;
      const at = `${day} ${group}`;
      const entry = byDayGroup.get(at) ?? { day, group, amount: 0 };
      entry.amount += event.noOfTokens.reduce((sum, n) => sum + n, 0);
      byDayGroup.set(at, entry);
    }
    const days = [...byDayGroup.values()].map((entry) => entry.day).sort();
    out.entity({
      type: "VestingSchedule",
      keys: [schedule],
      name: `${emission.name} token unlocks`,
      attributes: attributes([
        ["vestingStart", days[0]],
        ["vestingEnd", days.at(-1)],
      ]),
      relations: [["vestingOf", token]],
      sameAs: [`https://defillama.com/unlocks/${llamaSlug(emission.name)}`],
    });
    for (const entry of [...byDayGroup.values()].sort((a, b) => (a.day === b.day ? String(a.group).localeCompare(String(b.group)) : a.day < b.day ? -1 : 1))) {
      const future = entry.day > saved.day;
      out.row("unlocks", {
        entity_id: token,
        date: entry.day,
        schedule_id: schedule,
        allocation_group: entry.group,
        amount: entry.amount,
        // The price and circulating supply are today's: they speak for future events only.
        valueUsd: future && emission.tPrice != null ? entry.amount * emission.tPrice : null,
        shareOfSupply: emission.maxSupply ? entry.amount / emission.maxSupply : null,
        shareOfCirculating: future && emission.circSupply ? entry.amount / emission.circSupply : null,
      });
    }
  }
}
