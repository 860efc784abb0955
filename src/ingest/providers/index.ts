/**
 * @module ingest/providers
 * The connectors by provider id, one for each provider of config/providers (the type says so: a
 * provider without its connector, or a connector under another id, does not compile), in the order
 * the providers run.
 */
import type { Config } from "../../config/config.ts";
import { PROVIDER_IDS, type ProviderId } from "../../config/providers/index.ts";
import type { Connector, ProviderConfig } from "../connector.ts";
import { blockscout } from "./blockscout/index.ts";
import { chains } from "./chains.ts";
import { coingecko } from "./coingecko/index.ts";
import { defillama } from "./defillama/index.ts";
import { github } from "./github.ts";
import { snapshotOrg } from "./snapshot-org/index.ts";

const BY_ID: { [Id in ProviderId]: Connector<Id> } = { chains, coingecko, defillama, snapshot: snapshotOrg, github, blockscout };
export const CONNECTORS: readonly Connector[] = PROVIDER_IDS.map((id) => BY_ID[id]);

export function connector(id: ProviderId): Connector {
  return BY_ID[id];
}

export function providerConfig(config: Config, id: ProviderId): ProviderConfig {
  return connector(id).configure(config);
}

export type { ProviderConfig };
