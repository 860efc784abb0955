/**
 * @module ingest/providers/defillama/parse-treasuries
 * Protocol treasuries from `/treasury/<slug>` (DefiLlama's treasury tracker): what the protocol
 * holds each day, split into its own token, stablecoins and other assets.
 *
 * The answer has a protocol history's shape: `chainTvls` by chain, where `<Chain>` holds what is not
 * the protocol's own token, `<Chain>-OwnTokens` its own token on that chain and `OwnTokens` the sum
 * of those; `tokensInUsd` splits each chain's value by token symbol. A symbol is a stablecoin when
 * DefiLlama's stablecoins list of the same run names it. DefiLlama gives no spending figures, so
 * `monthlyExpensesUsd` (and with it the runway) stays null. The last year of days is kept.
 */
import { z } from "zod";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { dayOf, parseEach } from "../../connector.ts";
import { addDays } from "../../../time.ts";
import { P, protocolKey } from "./keys.ts";
import { type Known, listOf, loadSaved } from "./parse-common.ts";
import { stablecoinSchema, tvlPoint } from "./schemas.ts";

/** Days of a treasury's history kept (the answer is its whole history). */
const KEEP_DAYS = 365;

const tokensPoint = z.object({ date: z.union([z.number(), z.string()]), tokens: z.record(z.string(), z.number().nullable()) });
const treasurySchema = z.object({
  chainTvls: z.record(z.string(), z.object({ tvl: z.array(z.unknown()).nullish(), tokensInUsd: z.array(z.unknown()).nullish() })),
});

export function parseTreasuries(raw: RawStore, out: ProviderOutput, known: Known): void {
  const stable = stablecoinSymbols(raw);
  for (const rawKey of raw.keys(P, "treasury/")) {
    const slug = rawKey.slice("treasury/".length);
    const saved = loadSaved(raw, out, rawKey);
    if (!saved) continue;
    const parsed = treasurySchema.safeParse(saved.body);
    if (!parsed.success) {
      out.reject(rawKey, "not a treasury history (no chainTvls)");
      continue;
    }
    const from = addDays(saved.day, -KEEP_DAYS);
    const days = new Map<string, { other: number; own: number; stable: number }>();
    const at = (day: string) => {
      let d = days.get(day);
      if (!d) days.set(day, (d = { other: 0, own: 0, stable: 0 }));
      return d;
    };
    for (const [chain, series] of Object.entries(parsed.data.chainTvls)) {
      // Own tokens once (the `OwnTokens` total); other parts of a chain (`-staking`) are not holdings.
      const own = chain === "OwnTokens";
      if (!own && chain.includes("-")) continue;
      for (const point of parseEach(series.tvl ?? [], tvlPoint, (_, issue) => out.reject(`${rawKey} ${chain} point`, issue))) {
        const day = dayOf(point.date);
        if (!day || day < from || day > saved.day) continue;
        at(day)[own ? "own" : "other"] += point.totalLiquidityUSD ?? 0;
      }
      if (own) continue;
      for (const point of parseEach(series.tokensInUsd ?? [], tokensPoint)) {
        const day = dayOf(point.date);
        if (!day || day < from || day > saved.day) continue;
        for (const [symbol, usd] of Object.entries(point.tokens)) if (stable.has(symbol.toUpperCase())) at(day).stable += usd ?? 0;
      }
    }
    const entity = protocolKey(slug);
    for (const day of [...days.keys()].sort()) {
      const d = days.get(day)!;
      const total = d.other + d.own;
      if (total <= 0) continue;
      const stablecoins = Math.min(d.stable, d.other);
      out.row("treasury", {
        entity_id: entity,
        date: day,
        token_id: known.tokenOf.get(slug) ?? known.tokenOf.get(known.familyOf.get(slug) ?? "") ?? null,
        totalUsd: total,
        ownTokenUsd: d.own,
        stablecoinUsd: stablecoins,
        otherUsd: d.other - stablecoins,
        ownTokenShare: d.own / total,
        monthlyExpensesUsd: null,
      });
    }
  }
}

/** Symbols of the stablecoins DefiLlama lists (upper case). */
function stablecoinSymbols(raw: RawStore): Set<string> {
  const quiet = { reject: () => undefined };
  const saved = loadSaved(raw, quiet, "stablecoins");
  const list = saved && listOf(quiet, "stablecoins", saved.body, "peggedAssets");
  return new Set([...parseEach(list ?? [], stablecoinSchema)].map((coin) => coin.symbol.toUpperCase()));
}
