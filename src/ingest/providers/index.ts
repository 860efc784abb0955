/**
 * @module ingest/providers
 * The connectors in the order they run: chains first (every other provider names chains), then
 * CoinGecko and DefiLlama, whose saved lists tell the later ones what to ask (Snapshot's spaces and
 * GitHub's organizations from DefiLlama's protocols, Blockscout's tokens from CoinGecko's coins).
 */
import type { Config } from "../../config/config.ts";
import { PROVIDER_IDS, type ProviderId } from "../../config/providers.ts";
import type { Connector, ProviderConfig } from "../connector.ts";
import { blockscout } from "./blockscout/index.ts";
import { chains } from "./chains.ts";
import { coingecko } from "./coingecko/index.ts";
import { defillama } from "./defillama/index.ts";
import { github } from "./github.ts";
import { snapshot } from "./snapshot/index.ts";

const BY_ID: Record<ProviderId, Connector> = { chains, coingecko, defillama, snapshot, github, blockscout };
export const CONNECTORS: readonly Connector[] = PROVIDER_IDS.map((id) => BY_ID[id]);

export function connector(id: ProviderId): Connector {
  return BY_ID[id];
}

/** Provider ids from a comma-separated list; unknown names throw with the known ones. */
export function parseProviders(list: string): ProviderId[] {
  const ids = list.split(",").map((s) => s.trim()).filter(Boolean);
  const unknown = ids.filter((id) => !(PROVIDER_IDS as readonly string[]).includes(id));
  if (unknown.length > 0) throw new Error(`unknown provider${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (known: ${PROVIDER_IDS.join(", ")})`);
  // Run order is the connectors' order, whatever order the list gives.
  return PROVIDER_IDS.filter((id) => ids.includes(id));
}

export function providerConfig(config: Config, id: ProviderId): ProviderConfig {
  return connector(id).configure(config);
}

export type { ProviderConfig };
