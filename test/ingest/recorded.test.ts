/**
 * Connectors over real provider answers recorded by others, read in place from
 * ../shared/real-api/third-party/ (each file's origin in test/fixtures/SOURCES.md), beside the tests
 * over the recorded-shape fixtures in test/ingest/fixtures/. Skipped, saying so, where that folder is absent.
 */
import { describe, expect, test } from "bun:test";
import { coingecko } from "../../src/ingest/providers/coingecko/index.ts";
import { github } from "../../src/ingest/providers/github.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput, addressKey, key } from "../../src/ingest/records.ts";
import { silentLogger } from "../../src/log.ts";
import { readRecording, skipWithout } from "../support/shared-recordings.ts";
import { tempDir } from "../support/temp-dirs.ts";

const recorded = (provider: string, name: string): unknown => readRecording(`third-party/${provider}/${name}.json`);
const DAY = "2024-04-01";

const NO_COINGECKO = skipWithout("third-party/coingecko/markets.json", "the coingecko connector on CoinGecko.Net's recorded answers");

describe.skipIf(NO_COINGECKO)("coingecko connector on CoinGecko's recorded answers", () => {
  const out = new ProviderOutput("coingecko", silentLogger);
  // Guarded: bun runs a skipped describe's body to list its tests.
  if (!NO_COINGECKO) {
    const raw = new RawStore(tempDir("ckg-recorded-"));
    raw.save("coingecko", `asset_platforms/${DAY}`, recorded("coingecko", "asset_platforms"));
    raw.save("coingecko", `coins_list/${DAY}`, recorded("coingecko", "coins_list"));
    raw.save("coingecko", `markets/${DAY}/1`, recorded("coingecko", "markets"));
    raw.save("coingecko", "market_chart/ethereum/2024-03-31_2024-04-01", recorded("coingecko", "market_chart_ethereum"));
    coingecko.parse(raw, out);
  }
  const claim = (k: string) => out.claims.find((c) => c.keys.includes(k));

  test("every recorded record parses; nothing is rejected", () => {
    expect(out.rejected).toEqual([]);
  });

  test("an asset platform is a chain keyed by its EVM chain id", () => {
    const polygon = claim(key("Chain", "coingecko", "polygon-pos"))!;
    expect(polygon.name).toBe("Polygon POS");
    expect(polygon.keys).toContain(key("Chain", "caip2", "eip155:137"));
    expect(polygon.relations).toContainEqual(["nativeToken", key("Token", "coingecko", "matic-network")]);
  });

  test("a coin's platforms become its contract keys and deployments; a coin without platforms has none", () => {
    const zus = claim(key("Token", "coingecko", "0chain"))!;
    expect(zus).toMatchObject({ name: "Zus", symbol: "ZCN" });
    expect(zus.keys).toContain(addressKey(key("Chain", "coingecko", "ethereum"), "0xb9ef770b6a5e12e45983c5d80545258aa38f3b78"));
    expect(zus.keys).toContain(addressKey(key("Chain", "coingecko", "polygon-pos"), "0x8bb30e0e67b11b978a5040144c410e1ccddcba30"));
    expect(claim(key("Token", "coingecko", "01coin"))!.keys).toEqual([key("Token", "coingecko", "01coin")]);
  });

  test("a market record is today's row; a market chart gives one row a day, the day's last point", () => {
    const rows = out.series.get("token") ?? [];
    expect(rows.find((r) => r.entity_id === key("Token", "coingecko", "bitcoin") && r.marketCap === 1381651251183)).toBeDefined();
    const ethereum = rows.filter((r) => r.entity_id === key("Token", "coingecko", "ethereum"));
    expect(ethereum.map((r) => r.date)).toEqual(["2024-03-31", "2024-04-01"]);
    expect(ethereum[1]!.currentPrice).toBeCloseTo(68887.7495158568, 6); // 14:48 UTC beats midnight
  });
});

describe.skipIf(skipWithout("third-party/github/repository_hello-world.json", "the github connector on octokit's recorded repository"))("github connector on a recorded GitHub answer", () => {
  test("a repository record (GET /repos/octokit-fixture-org/hello-world, as a one-item org page) is a Repository with its page", () => {
    const raw = new RawStore(tempDir("ckg-recorded-"));
    raw.save("github", "repos/octokit-fixture-org/1", [recorded("github", "repository_hello-world")]);
    const out = new ProviderOutput("github", silentLogger);
    github.parse(raw, out);
    expect(out.rejected).toEqual([]);
    const repo = out.claims.find((c) => c.type === "Repository")!;
    expect(repo.name).toBe("octokit-fixture-org/hello-world");
    expect(repo.sameAs).toEqual(["https://github.com/octokit-fixture-org/hello-world"]);
    expect(repo.attributes).toContainEqual(["schema:url", "https://github.com/octokit-fixture-org/hello-world"]);
  });
});
