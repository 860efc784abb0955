/**
 * The Blockscout connector over its recorded-shape answers (test/ingest/fixtures/blockscout, shaped
 * from Blockscout's API v2 documentation: no public recording could be bundled), served on
 * localhost beside CoinGecko's fixtures, whose lists choose the tokens.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { coingecko } from "../../src/ingest/providers/coingecko/index.ts";
import { blockscout, HOLDERS_KEPT } from "../../src/ingest/providers/blockscout/index.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput, addressKey } from "../../src/ingest/records.ts";
import { silentLogger } from "../../src/log.ts";
import { testFetchContext } from "../support/fetch-context.ts";
import { providerConfigs, startProviderFixtures } from "../support/provider-fixtures.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { chainKeyOf } from "../../src/ingest/providers/blockscout/index.ts";

const TODAY = "2024-07-01";
const UNI = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984";
const LINK = "0x514910771af9ca656af840dff83e8264ecf986ca";
const markets = (page: number) => JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "coingecko", `markets_page${page}.json`), "utf8")) as unknown[];
// CoinGecko's markets on one page (its fixture splits them in two to test paging): every coin with a contract is in reach.
const server = startProviderFixtures((path, url) =>
  path === "/coingecko/api/v3/coins/markets" && !url.searchParams.has("category") && url.searchParams.get("page") === "1" ? [...markets(1), ...markets(2)] : undefined,
);
afterAll(() => server.stop());

/** CoinGecko's lists saved, then Blockscout fetched with these settings, into one raw store. */
async function fetched(settings: { tokens?: number; apiKey?: string } = {}) {
  const raw = new RawStore(tempDir("ckg-blockscout-"));
  const configs = providerConfigs(server.url, ["coingecko", "blockscout"]);
  await coingecko.fetch(testFetchContext("coingecko", raw, configs.get("coingecko")!.settings, { today: TODAY, detailLimit: 0 }));
  const asked = server.requests.length;
  const ctx = testFetchContext("blockscout", raw, { ...configs.get("blockscout")!.settings, apiKey: settings.apiKey, limits: { tokens: settings.tokens ?? 10 } }, { today: TODAY, detailLimit: 0 });
  await blockscout.fetch(ctx);
  const out = new ProviderOutput("blockscout", silentLogger);
  blockscout.parse(raw, out);
  return { out, ctx, requests: server.requests.slice(asked) };
}

const holdersOf = (out: ProviderOutput, address: string) => (out.series.get("holders") ?? []).filter((r) => r.entity_id === addressKey(chainKeyOf(1), address));

describe("Blockscout token holders", () => {
  test("the largest coins with an Ethereum contract are asked for, two requests each; a token the explorer lacks is absent, not skipped", async () => {
    const { requests, ctx, out } = await fetched();
    const tokens = (list: string[]) => [...new Set(list.map((r) => /\/tokens\/(0x[0-9a-f]{40})/i.exec(r)![1]!.toLowerCase()))];
    // The five coins of CoinGecko's fixture with an Ethereum contract, each asked for its token and its holders.
    expect(requests).toHaveLength(10);
    expect(tokens(requests).sort()).toEqual([UNI, LINK, "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "0xdac17f958d2ee523a2206206994597c13d831ec7"].sort());
    // Tether and USDC are not on this explorer (404): nothing saved, nothing skipped, nothing parsed.
    expect(ctx.skipped).toEqual([]);
    expect(holdersOf(out, "0xdac17f958d2ee523a2206206994597c13d831ec7")).toEqual([]);
    // blockscout_tokens bounds the tokens, the largest by market cap first.
    const two = await fetched({ tokens: 2 });
    expect(two.requests).toHaveLength(4);
    expect(tokens(two.requests)).toEqual(tokens(requests).slice(0, 2));
  });

  test("exchange, bridge and burn addresses and the token's own contract are left out, by reason; ten are kept, with the explorer's labels", async () => {
    const { out } = await fetched();
    const uni = holdersOf(out, UNI);
    expect(uni).toHaveLength(HOLDERS_KEPT);
    expect(uni.map((r) => r.rank)).toEqual(Array.from({ length: HOLDERS_KEPT }, (_, i) => i + 1));
    // The timelock (Uniswap's treasury) leads; its share from the integers: 212M of 1B.
    expect(uni[0]).toMatchObject({ wallet: "eip155:1:0x1a9c8182c09f50c8318d769245bea52c32be35bc", holder_label: "Uniswap: Timelock", shareOfSupply: 0.212, balance: 212_000_000, date: TODAY });
    // A vesting contract keeps its name tag (a named insider for the flows), not its contract name.
    expect(uni[1]!.holder_label).toBe("Uniswap: Investor Vesting");
    const wallets = uni.map((r) => r.wallet);
    for (const gone of ["0x28c6c06298d514db089934071355e5743bf21d60", "0x000000000000000000000000000000000000dead", UNI, "0xcee284f754e854890e311e3280b767f80797180d"]) {
      expect(wallets).not.toContain(`eip155:1:${gone}`);
    }
    expect(Object.fromEntries(out.leftOut)).toMatchObject({
      "exchange wallet (tagged by the explorer)": 1,
      "burn address": 1,
      "the token's own contract": 1,
      "bridge (tagged or named by the explorer)": 1,
    });
    // Unlabelled wallets are kept (they may be whales): no label.
    expect(uni.at(-1)!.holder_label).toBeNull();
  });

  test("a malformed holder is rejected, a token without a total supply rejects its page; the others parse", async () => {
    const { out } = await fetched();
    expect(out.rejected.some((r) => r.what.includes(UNI) && /amount/.test(r.reason))).toBe(true);
    expect(out.rejected.some((r) => r.what.startsWith("holders/1/0x2260fac5e5542a773aa44fbcfedf7c193bc2c599") && /total supply/.test(r.reason))).toBe(true);
    expect(holdersOf(out, LINK).map((r) => r.balance)).toEqual([300_000_000, 21_000_000, 12_500_000]);
    // The explorer names the token, so its rows resolve where no list names the contract.
    expect(out.claims.find((c) => c.keys.includes(addressKey(chainKeyOf(1), LINK)))).toMatchObject({ type: "Token", name: "ChainLink Token", symbol: "LINK" });
  });

  test("an API key is sent as the explorer's apikey parameter", async () => {
    const { requests } = await fetched({ tokens: 1, apiKey: "k-123" });
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests) expect(r).toContain("?apikey=k-123");
  });
});
