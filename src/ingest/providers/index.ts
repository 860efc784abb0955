/**
 * @module ingest/providers
 * The connectors in the order they run (chains first: every other provider names chains), and
 * their settings from the configuration.
 */
import type { Config } from "../../config/config.ts";
import type { Connector, ProviderSettings } from "../connector.ts";
import type { ProviderId } from "../records.ts";
import { chains } from "./chains.ts";
import { coingecko } from "./coingecko/index.ts";
import { defillama } from "./defillama/index.ts";
import { github } from "./github.ts";
import { snapshot } from "./snapshot/index.ts";

export const CONNECTORS: readonly Connector[] = [chains, coingecko, defillama, snapshot, github];

export function connector(id: ProviderId): Connector {
  return CONNECTORS.find((c) => c.id === id)!;
}

/** Provider ids from a comma-separated list; unknown names throw with the known ones. */
export function parseProviders(list: string): ProviderId[] {
  const ids = list.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !CONNECTORS.some((c) => c.id === id));
  if (unknown.length > 0) throw new Error(`unknown provider${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (known: ${CONNECTORS.map((c) => c.id).join(", ")})`);
  // Run order is the connectors' order, whatever order the list gives.
  return CONNECTORS.map((c) => c.id).filter((id) => ids.includes(id));
}

export interface ProviderConfig {
  settings: ProviderSettings;
  /** Least time between two requests to this provider. */
  minIntervalMs: number;
}

export function providerConfig(config: Config, id: ProviderId): ProviderConfig {
  switch (id) {
    case "chains":
      return { settings: { urls: { chainlist: config.chainlist_url } }, minIntervalMs: 0 };
    case "coingecko":
      return { settings: { urls: { api: config.coingecko_url }, apiKey: config.coingecko_api_key }, minIntervalMs: config.coingecko_min_interval_ms };
    case "defillama":
      return {
        settings: {
          urls: { api: config.defillama_url, yields: config.defillama_yields_url, stablecoins: config.defillama_stablecoins_url, pro: config.defillama_pro_url },
          apiKey: config.defillama_api_key,
        },
        minIntervalMs: 0,
      };
    case "snapshot":
      return { settings: { urls: { api: config.snapshot_url } }, minIntervalMs: 0 };
    case "github":
      return { settings: { urls: { api: config.github_url }, apiKey: config.github_token }, minIntervalMs: 0 };
  }
}
