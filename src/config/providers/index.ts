/**
 * @module config/providers
 * The registry of the data providers `ckg ingest` reads, in the order they run: chains first (every
 * other provider names chains), then CoinGecko and DefiLlama, whose saved lists tell the later ones
 * what to ask (Snapshot's spaces and GitHub's organizations from DefiLlama's protocols, Blockscout's
 * tokens from CoinGecko's coins). The ids, their settings, the `ingest_providers` setting, the
 * command line and the connectors (ingest/providers, checked against these ids) all come from here.
 */
import type { ProviderDefinition } from "../provider.ts";
import type { Setting } from "../setting.ts";
import { blockscoutProvider } from "./blockscout.ts";
import { chainsProvider } from "./chains.ts";
import { coingeckoProvider } from "./coingecko.ts";
import { defillamaProvider } from "./defillama.ts";
import { githubProvider } from "./github.ts";
import { snapshotOrgProvider } from "./snapshot-org.ts";

export const PROVIDERS = [chainsProvider, coingeckoProvider, defillamaProvider, snapshotOrgProvider, githubProvider, blockscoutProvider] as const;

export type ProviderId = (typeof PROVIDERS)[number]["id"];
export const PROVIDER_IDS: readonly ProviderId[] = PROVIDERS.map((p) => p.id);

function isProviderId(name: string): name is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(name);
}

/** The providers a comma-separated list names, in run order whatever order it gives, and the names it gives that are none. */
export function parseProviderList(list: string): { ids: ProviderId[]; unknown: string[] } {
  const names = list.split(",").map((s) => s.trim()).filter(Boolean);
  return { ids: PROVIDER_IDS.filter((id) => names.includes(id)), unknown: names.filter((name) => !isProviderId(name)) };
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type SettingsOf<P extends readonly ProviderDefinition[]> = UnionToIntersection<P[number]["settings"]>;

/** Every provider's own settings, one table; a name two providers claim is a mistake caught at load. */
export const PROVIDER_SETTINGS = PROVIDERS.reduce<Record<string, Setting>>((all, provider) => {
  for (const [name, definition] of Object.entries(provider.settings)) {
    if (name in all) throw new Error(`setting ${name} is defined by two providers`);
    all[name] = definition;
  }
  return all;
}, {}) as SettingsOf<typeof PROVIDERS>;
