/**
 * @module config/providers
 * The data providers `ckg ingest` reads, by id: the one list the settings, the command line and the
 * connectors (ingest/providers) all name them from, in the order they run.
 */
export const PROVIDER_IDS = ["chains", "coingecko", "defillama", "snapshot", "github", "blockscout"] as const;
export type ProviderId = (typeof PROVIDER_IDS)[number];

export function isProviderId(name: string): name is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(name);
}
