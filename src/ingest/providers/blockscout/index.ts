/**
 * @module ingest/providers/blockscout
 * The largest holders of the largest tokens, read each day from Blockscout explorers (API v2, free
 * and keyless on the public instances of Ethereum, Base, OP Mainnet, Arbitrum One, Gnosis and
 * Polygon; `blockscout_api_key` is sent when set). ckg keeps one snapshot a day: the `holders`
 * series is the ten largest holders of each token by day, and the insider flows derived from two
 * snapshots in a row (ingest/derived-flows) are those holders' balance changes.
 *
 * Which tokens: the `blockscout_tokens` largest coins by market cap in CoinGecko's answers of the
 * same run that have a contract on a configured chain (coingecko/contracts), each on the first
 * such chain in the settings' order. Per token two requests: the token (total supply, decimals)
 * and the first page of its holders (50, by balance).
 *
 * Exchanges, bridges and burns are not holders in the sense the signals mean (an exchange's hot
 * wallet holds its customers' coins; a bridge holds what was sent to another chain; a burn address
 * holds what no one can spend): they are left out before ranking (holders-kept.ts), and the ten
 * largest of the rest are kept, with what the explorer calls each (`holder_label`).
 */
import { blockscoutProvider } from "../../../config/providers/blockscout.ts";
import { ask, defineConnector, parseEach } from "../../connector.ts";
import { addressKey, key } from "../../records.ts";
import { largestContracts } from "../coingecko/contracts.ts";
import { exclusionOf, labelOf } from "./holders-kept.ts";
import { holderSchema, holdersKey, P, parseHoldersKey, tokenInfoKey, tokenInfoSchema } from "./schemas.ts";

/** Holders kept per token and day. */
export const HOLDERS_KEPT = 10;
/** Tokens read a day when the settings give no limit: the setting's default. */
const DEFAULT_TOKENS = blockscoutProvider.settings.blockscout_tokens.default;

export const chainKeyOf = (chainId: number) => key("Chain", "caip2", `eip155:${chainId}`);

export const blockscout = defineConnector(blockscoutProvider, {
  source: {
    name: "Blockscout explorers (API v2)",
    license: "public explorer API (Blockscout, GPL-3.0 software); balances are public chain state",
    attribution: "Token holders from Blockscout explorers (https://www.blockscout.com).",
    homepage: "https://www.blockscout.com",
  },
  configure: (settings) => ({
    settings: {
      urls: Object.fromEntries(settings.blockscout_urls.split(",").map((pair) => pair.split("=").map((s) => s.trim()) as [string, string])),
      apiKey: settings.blockscout_api_key,
      limits: { tokens: settings.blockscout_tokens },
    },
    minIntervalMs: settings.blockscout_min_interval_ms,
  }),

  async fetch(ctx) {
    // `urls` maps an EVM chain id to its explorer ("1" -> https://eth.blockscout.com).
    const instances = new Map(Object.entries(ctx.settings.urls).flatMap(([id, url]) => (/^\d+$/.test(id) ? [[Number(id), url.replace(/\/+$/, "")] as const] : [])));
    const tokens = largestContracts(ctx.raw, [...instances.keys()], Math.max(0, ctx.settings.limits?.tokens ?? DEFAULT_TOKENS));
    if (tokens.length === 0) ctx.log.warn({}, "Blockscout: no CoinGecko coins with a contract on a configured chain in this run (run the coingecko provider first); nothing fetched");
    const query = ctx.settings.apiKey ? `?apikey=${encodeURIComponent(ctx.settings.apiKey)}` : "";
    ctx.progress(0, tokens.length);
    for (const [i, { chainId, address }] of tokens.entries()) {
      const api = `${instances.get(chainId)}/api/v2/tokens/${address}`;
      await ask(ctx, P, tokenInfoKey(chainId, address, ctx.today), () => ctx.http.getJson(`${api}${query}`), { absentOn: [404] });
      await ask(ctx, P, holdersKey(chainId, address, ctx.today), () => ctx.http.getJson(`${api}/holders${query}`), { absentOn: [404] });
      ctx.progress(i + 1, tokens.length);
    }
  },

  parse(raw, out) {
    for (const k of raw.keys(P, "holders/")) {
      const at = parseHoldersKey(k);
      if (!at) continue;
      const { chainId, address, day } = at;
      const info = tokenInfoSchema.safeParse(raw.load(P, tokenInfoKey(chainId, address, day)));
      if (!info.success || info.data.total_supply === null || info.data.decimals === null || BigInt(info.data.total_supply) === 0n) {
        out.reject(k, "no token answer with a total supply and decimals beside it");
        continue;
      }
      const page = raw.load(P, k) as { items?: unknown } | null;
      if (!Array.isArray(page?.items)) {
        out.reject(k, "not a holders page (no items)");
        continue;
      }
      const supply = BigInt(info.data.total_supply);
      const unit = 10 ** Number(info.data.decimals);
      const chain = chainKeyOf(chainId);
      const token = addressKey(chain, address);
      // The token as the explorer names it, so its rows resolve even where no other list names the contract.
      const name = info.data.name?.trim();
      if (name) out.entity({ type: "Token", keys: [token], name, symbol: info.data.symbol?.trim().toUpperCase() || undefined, relations: [["deployedOn", chain]] });
      let rank = 0;
      for (const holder of parseEach(page.items, holderSchema, (item, issue) => out.reject(`holder of ${address} (${k})`, issue))) {
        const excluded = exclusionOf(holder.address, address);
        if (excluded) {
          out.leaveOut(`holder ${holder.address.hash} of ${address}`, excluded);
          continue;
        }
        if (++rank > HOLDERS_KEPT) break;
        const value = BigInt(holder.value);
        out.row("holders", {
          entity_id: token,
          date: day,
          rank,
          wallet: `eip155:${chainId}:${holder.address.hash.toLowerCase()}`,
          holder_id: null,
          holder_label: labelOf(holder.address) ?? null,
          balance: Number(value) / unit,
          // Shares to a millionth, from the integers (a float of 10^27 loses the low digits).
          shareOfSupply: Number((value * 1_000_000n) / supply) / 1_000_000,
        });
      }
    }
  },
});
