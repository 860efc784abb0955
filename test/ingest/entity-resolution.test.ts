import { describe, expect, test } from "bun:test";
import { silentLogger } from "../../src/log.ts";
import { copyOfFixture } from "../support/fixture.ts";
import { LABELLED, measureResolution } from "./entity-resolution.ts";

describe("entity resolution on a labelled set of real identities", () => {
  test("at least 100 identities; every key lands on its one entity; no real thing is left as two", async () => {
    expect(LABELLED.coingecko_tokens.length + LABELLED.coingecko_natives.length + LABELLED.defillama_stablecoins.length).toBeGreaterThanOrEqual(100);
    const score = await measureResolution(await copyOfFixture(), silentLogger);
    expect(score.keys).toBeGreaterThanOrEqual(180);
    expect(score.misses).toEqual([]);
    expect(score.precision).toBe(1);
    expect(score.recall).toBe(1);
    expect(score.duplicates.groups).toEqual([]);
  }, 120_000);
});
