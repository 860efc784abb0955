/**
 * DefiLlama's `/hacks` through the DefiLlama connector: each incident a dated SecurityIncident on the
 * protocol it names (resolved through the same run's protocol list, as raises are), malformed
 * incidents rejected and counted, unresolvable ones kept without the link and counted.
 *
 * Two sources of answers: the recorded-shape fixture (test/ingest/fixtures/defillama/hacks.json:
 * real incident names and days with illustrative figures, and malformed records), served over HTTP
 * like every DefiLlama answer; and DefiLlama's real answer recorded by others
 * (../shared/real-history/defillama/hacks.json, no licence stated: read in place, never copied),
 * skipped with a plain message where that folder is absent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { defillama } from "../../src/ingest/providers/defillama/index.ts";
import { NO_PROTOCOL, UNKNOWN_PROTOCOL } from "../../src/ingest/providers/defillama/parse-hacks.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { type EntityClaim, ProviderOutput, key } from "../../src/ingest/records.ts";
import { silentLogger } from "../../src/log.ts";
import { type FakeProvider, startFakeProvider } from "../support/fake-provider.ts";
import { testFetchContext } from "../support/fetch-context.ts";
import { defillamaFixture } from "../support/provider-fixtures.ts";
import { defillamaFixtureFile as fixture, listsWithEuler, REAL_HACKS, savedAnswers as saved, skipWithoutRealHacks } from "../support/defillama-hacks.ts";
import { tempDir } from "../support/temp-dirs.ts";

const TODAY = "2025-01-10";
const savedAnswers = (answers: Record<string, unknown>) => saved(answers, TODAY);
const protocol = (slug: string) => key("Protocol", "defillama", slug);
const chain = (name: string) => key("Chain", "defillama", name);
const incident = (id: string) => key("SecurityIncident", "defillama", id);

function parse(raw: RawStore): ProviderOutput {
  const out = new ProviderOutput("defillama", silentLogger);
  defillama.parse(raw, out);
  return out;
}

/** Rejections of incidents (the fixture's protocol list has a malformed protocol of its own). */
const hackRejections = (out: ProviderOutput) => out.rejected.filter((r) => r.what.startsWith("hack "));
const incidents = (out: ProviderOutput) => out.claims.filter((c) => c.type === "SecurityIncident");
function claim(out: ProviderOutput, k: string): EntityClaim {
  const found = out.claims.filter((c) => c.keys[0] === k);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe("security incidents from DefiLlama's /hacks (recorded-shape fixture over HTTP)", () => {
  let fake: FakeProvider;
  let out: ProviderOutput;
  beforeAll(async () => {
    fake = startFakeProvider((url) => defillamaFixture(url.pathname, url.searchParams));
    const raw = new RawStore(tempDir("ckg-hacks-"));
    const base = fake.url;
    const ctx = testFetchContext("defillama", raw, { urls: { api: `${base}/api`, yields: `${base}/yields`, stablecoins: `${base}/stablecoins`, datasets: `${base}/datasets`, pro: `${base}/pro` } }, { today: TODAY, detailLimit: 1 });
    await defillama.fetch(ctx);
    expect(ctx.skipped.map((s) => s.request)).not.toContain("hacks");
    out = parse(raw);
  });
  afterAll(() => fake.stop());

  test("one request, saved whole; every incident a SecurityIncident claim, the malformed ones rejected with their reason", () => {
    expect(fake.requests.filter((r) => r === "GET /api/hacks")).toHaveLength(1);
    expect(incidents(out)).toHaveLength(7);
    expect(hackRejections(out)).toEqual([
      { provider: "defillama", what: 'hack "Broken Date Hack"', reason: "date: not a time" },
      { provider: "defillama", what: "hack (unnamed)", reason: expect.stringContaining("name") },
      { provider: "defillama", what: 'hack "Negative Loss"', reason: expect.stringContaining("amount") },
      { provider: "defillama", what: 'hack "String Chains"', reason: expect.stringContaining("chain") },
    ]);
  });

  test("an incident on a protocol of the list: dated, with amount, returned funds, technique, class, target, bridge flag, language; on the protocol and its family", () => {
    const aave = claim(out, incident("1599-2026-03-12"));
    expect(aave.name).toBe("Aave V3 hack, 2026-03-12");
    expect(aave.attributes).toEqual([
      ["occurredOn", "2026-03-12"],
      ["amountUsd", 850000],
      ["returnedFundsUsd", 850000],
      ["technique", "Oracle Misconfiguration"],
      ["classification", "Ecosystem"],
      ["targetType", "DeFi Protocol"],
      ["bridgeHack", false],
      ["programmingLanguage", "Solidity"],
    ]);
    expect(aave.relations).toEqual([
      ["incidentOf", protocol("aave-v3")],
      ["incidentOf", protocol("aave")],
      ["incidentChain", chain("Ethereum")],
    ]);
  });

  test("no protocol named (an exchange; SushiSwap, which DefiLlama lists without an id): kept, dated and on its chains, counted without the link", () => {
    const ftx = claim(out, incident("ftx-2022-11-12"));
    expect(ftx.name).toBe("FTX hack, 2022-11-12");
    expect(ftx.attributes).toContainEqual(["targetType", "CEX"]);
    expect(ftx.relations).toEqual([
      ["incidentChain", chain("Ethereum")],
      ["incidentChain", chain("Solana")],
    ]);
    // DefiLlama's former chain name (Optimism) is the chain list's current one.
    expect(claim(out, incident("sushiswap-2023-04-10")).relations).toEqual(["Ethereum", "Arbitrum", "OP Mainnet", "BSC"].map((c) => ["incidentChain", chain(c)]));
    expect(out.leftOut.get(NO_PROTOCOL)).toBe(2);
  });

  test("a protocol id the run's list does not hold (Euler V1, Mirror, Nomad here): kept without the link, counted apart", () => {
    const euler = claim(out, incident("1183-2023-03-13"));
    expect(euler.relations!.filter(([r]) => r === "incidentOf")).toEqual([]);
    expect(euler.attributes).toContainEqual(["amountUsd", 195000000]);
    expect(claim(out, incident("1682-2022-08-01")).attributes).toContainEqual(["bridgeHack", true]);
    expect(out.leftOut.get(UNKNOWN_PROTOCOL)).toBe(4);
  });

  test("two incidents of one protocol on one day are two events, told apart by their technique", () => {
    const mirror = incidents(out).filter((c) => c.name.startsWith("Mirror"));
    expect(mirror.map((c) => [c.keys[0], c.name])).toEqual([
      [incident("260-2021-10-08-outdated-oracle-exploit"), "Mirror hack, 2021-10-08 (Outdated Oracle Exploit)"],
      [incident("260-2021-10-08-duplicate-call-exploit"), "Mirror hack, 2021-10-08 (Duplicate Call Exploit)"],
    ]);
  });

  test("the largest incidents are the most prominent (explore lists a protocol's incidents in that order)", () => {
    const ranked = [...incidents(out)].sort((a, b) => b.prominence! - a.prominence!).map((c) => c.name);
    expect(ranked.slice(0, 2)).toEqual(["FTX hack, 2022-11-12", "Euler V1 hack, 2023-03-13"]);
  });
});

describe("security incidents resolved like the other DefiLlama records", () => {
  test("Euler V1's incident (defillamaId 1183, parentProtocolId parent#euler) is on Euler V1 and on Euler when the protocol lists have them", () => {
    const out = parse(savedAnswers({ ...listsWithEuler(), hacks: fixture("hacks.json") }));
    expect(claim(out, protocol("euler-v1")).relations).toContainEqual(["parentProtocol", protocol("euler")]);
    expect(claim(out, incident("1183-2023-03-13")).relations).toEqual([
      ["incidentOf", protocol("euler-v1")],
      ["incidentOf", protocol("euler")],
      ["incidentChain", chain("Ethereum")],
    ]);
    expect(out.leftOut.get(UNKNOWN_PROTOCOL)).toBe(3);
  });

  test("without parentProtocolId the family comes from the protocol list; without the hacks answer nothing is claimed or rejected", () => {
    const hack = { date: 1678665600, name: "Euler V1", amount: 1, chain: ["Ethereum"], defillamaId: "1183" };
    const out = parse(savedAnswers({ ...listsWithEuler(), hacks: [hack] }));
    expect(claim(out, incident("1183-2023-03-13")).relations!.filter(([r]) => r === "incidentOf")).toEqual([
      ["incidentOf", protocol("euler-v1")],
      ["incidentOf", protocol("euler")],
    ]);
    const none = parse(savedAnswers(listsWithEuler()));
    expect(incidents(none)).toEqual([]);
    expect(hackRejections(none)).toEqual([]);
  });

  test("an answer that is not a list is rejected whole, never thrown", () => {
    const out = parse(savedAnswers({ hacks: { message: "Internal server error" } }));
    expect(out.rejected).toEqual([{ provider: "defillama", what: "hacks", reason: "answer is not a list" }]);
  });
});

describe.skipIf(skipWithoutRealHacks("the DefiLlama connector on DefiLlama's recorded /hacks"))("security incidents from DefiLlama's recorded /hacks (../shared/real-history)", () => {
  let out: ProviderOutput;
  let recorded: { name: string; defillamaId: number | null; parentProtocolId?: string }[];
  // Read in beforeAll: bun runs a skipped describe's body to list its tests.
  beforeAll(() => {
    recorded = JSON.parse(readFileSync(REAL_HACKS, "utf8"));
    out = parse(savedAnswers({ ...listsWithEuler(), hacks: recorded }));
  });

  test("all 538 recorded incidents parse, none rejected, each one event (two on one day told apart)", () => {
    expect(recorded).toHaveLength(538);
    expect(hackRejections(out)).toEqual([]);
    expect(incidents(out)).toHaveLength(538);
    expect(new Set(incidents(out).map((c) => c.keys[0])).size).toBe(538);
  });

  test("Euler: 2023-03-13, $197M, on Euler V1 and Euler", () => {
    const euler = claim(out, incident("1183-2023-03-13"));
    expect(euler.name).toBe("Euler V1 hack, 2023-03-13");
    expect(euler.attributes).toContainEqual(["occurredOn", "2023-03-13"]);
    expect(euler.attributes).toContainEqual(["amountUsd", 197000000]);
    expect(euler.relations).toContainEqual(["incidentOf", protocol("euler-v1")]);
    expect(euler.relations).toContainEqual(["incidentOf", protocol("euler")]);
  });

  test("the incidents that name no protocol are kept and counted; those naming one this list lacks, counted apart", () => {
    const naming = recorded.filter((h) => h.defillamaId !== null || h.parentProtocolId);
    expect(out.leftOut.get(NO_PROTOCOL)).toBe(recorded.length - naming.length);
    // Of the ids named, the fixture's list holds Aave V3 (1599) and Euler V1 (1183).
    const resolved = incidents(out).filter((c) => c.relations!.some(([r]) => r === "incidentOf"));
    expect(out.leftOut.get(UNKNOWN_PROTOCOL)).toBe(naming.length - resolved.length);
    expect(resolved.map((c) => c.name).sort()).toEqual(expect.arrayContaining(["Aave V3 hack, 2026-03-12", "Euler V1 hack, 2023-03-13"]));
  });
});
