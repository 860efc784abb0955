/**
 * @module ingest/resolve/types
 * What resolution takes (each provider's claims, under its source) and gives: the entity id of
 * every key, what it touched, the conflicts between sources, and its counts.
 */
import type { SourceInfo } from "../../model/world.ts";
import type { ProviderOutput, SeriesRow } from "../records.ts";

export interface Conflict {
  entity_id: string;
  field: string;
  values: { value: string; source: string }[];
}

export interface ResolveStats {
  claims: number;
  entities_created: number;
  entities_matched: number;
  matched_by_name: number;
  /** Stablecoins matched by their ticker: the one real stablecoin that has it. */
  matched_by_symbol: number;
  /** Chains' own coins matched by ticker and name or chain name. */
  matched_native_coins: number;
  synthetic_replaced: number;
  relations_unresolved: number;
  rows_unresolved: number;
  /** Chains a provider named by a display name its chain list no longer uses, found by name or alias. */
  chains_by_former_name: number;
}

export interface Resolution {
  /** The entity id a key names, after resolution. */
  idOf(key: string): string | undefined;
  /** Entities that got facts from a provider in this run. */
  touched: Set<string>;
  identity: Map<string, string>;
  conflicts: Conflict[];
  stats: ResolveStats;
  /** Series rows with keys replaced by entity ids (rows whose entity did not resolve are dropped). */
  resolveRows(rows: SeriesRow[]): SeriesRow[];
}

export interface ProviderBatch {
  output: ProviderOutput;
  source: SourceInfo;
  /** When the provider was read: the as-of of every fact it adds. */
  asOf: string;
}
