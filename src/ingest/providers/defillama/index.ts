/**
 * @module ingest/providers/defillama
 * DefiLlama's free API (api.llama.fi, yields.llama.fi, stablecoins.llama.fi, and unlock schedules on
 * defillama-datasets.llama.fi; the full raises list on the paid API when a key is set): chains,
 * protocols with their parents, forks, tokens and governance spaces, protocol TVL/fees/revenue
 * histories with incentives and earnings, treasuries, pools and lending markets, stablecoins with
 * their descriptions, funding rounds with who invested in what, token unlocks, and security
 * incidents (`/hacks`: dated hacks and exploits on the protocols they hit).
 *
 * The protocol list is `/protocols` (not `/lite/protocols2`): only it carries the slug, token
 * address, description and url. Parent protocols appear there only as ids (`parent#uniswap`) and
 * slugs (`parentProtocolSlug`); their names, urls, tokens and governance come from the
 * `parentProtocols` list of `/lite/protocols2`, fetched for that list alone. A parent is keyed by
 * its slug like any protocol (`/protocol/<slug>` and defillama.com/protocol/<slug> serve parents
 * and protocols from one namespace), so `Protocol:defillama:uniswap` is the parent of
 * `Protocol:defillama:uniswap-v3`.
 *
 * Every answer is saved as `{ day, since, body }`: `body` is DefiLlama's answer untouched, `day` the
 * run's day (the date of the rows a list gives for "now"), `since` the last day already stored for
 * the history it holds. DefiLlama always returns whole histories (no start parameter), so the
 * saving of an incremental run is in what is stored: parse keeps only the days after `since`
 * (for protocols, the cursor less PROTOCOL_LOOKBACK_DAYS: fees arrive after the day). Parse reads
 * only the raw store, so an import of answers carried from elsewhere parses alike.
 */
import { defillamaProvider } from "../../../config/providers/defillama.ts";
import { defineConnector } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { fetchAll } from "./fetch.ts";
import { type Known } from "./parse-common.ts";
import { fillEarnings } from "./parse-earnings.ts";
import { parseEmissions } from "./parse-emissions.ts";
import { parseHacks } from "./parse-hacks.ts";
import { parseChains, parseProtocolHistories, parseProtocols } from "./parse-protocols.ts";
import { parseRaises } from "./parse-raises.ts";
import { parseStablecoins } from "./parse-stablecoins.ts";
import { parseTreasuries } from "./parse-treasuries.ts";
import { parseLending, parsePools } from "./parse-yields.ts";

function parseAll(raw: RawStore, out: ProviderOutput): void {
  const known: Known = { chainByPrefix: new Map(), nativeToken: new Map(), slugById: new Map(), familyOf: new Map(), tokenOf: new Map() };
  const steps: [string, () => void][] = [
    ["chains", () => parseChains(raw, out, known)],
    ["protocols", () => parseProtocols(raw, out, known)],
    ["protocol histories", () => parseProtocolHistories(raw, out)],
    ["pools and lending markets", () => parseLending(raw, out, known, parsePools(raw, out, known))],
    ["incentives and earnings", () => fillEarnings(out)],
    ["treasuries", () => parseTreasuries(raw, out, known)],
    ["stablecoins", () => parseStablecoins(raw, out)],
    ["raises", () => parseRaises(raw, out, known)],
    ["unlock schedules", () => parseEmissions(raw, out)],
    ["security incidents", () => parseHacks(raw, out, known)],
  ];
  // Parse never throws: a step that fails on something unforeseen is reported and the others go on.
  for (const [what, step] of steps) {
    try {
      step();
    } catch (error) {
      out.reject(what, `parse failed: ${(error as Error).message}`);
    }
  }
}

export const defillama = defineConnector(defillamaProvider, {
  source: {
    name: "DefiLlama",
    license: "DefiLlama API terms of use",
    attribution: "DeFi data from DefiLlama (https://defillama.com).",
    homepage: "https://defillama.com",
  },
  configure: (settings) => ({
    settings: {
      urls: { api: settings.defillama_url, yields: settings.defillama_yields_url, stablecoins: settings.defillama_stablecoins_url, datasets: settings.defillama_datasets_url, pro: settings.defillama_pro_url },
      apiKey: settings.defillama_api_key,
    },
    // Paced like CoinGecko: every request (the CONCURRENCY detail workers share one pace) waits its turn.
    minIntervalMs: settings.defillama_min_interval_ms,
  }),
  fetch: fetchAll,
  parse: parseAll,
});

export { PROTOCOL_LOOKBACK_DAYS } from "./keys.ts";
