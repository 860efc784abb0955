/**
 * Security incidents (DefiLlama's `/hacks`) in the graph, in explore and in SPARQL, after a real
 * `ckg ingest` of saved DefiLlama answers onto the fixture world: the recorded-shape fixture's
 * incidents (real names and days, illustrative figures) with protocol lists that hold Euler V1 and
 * its family. An agent asks "was this protocol exploited, when, for how much" and the graph answers,
 * each fact in DefiLlama's named graph; a protocol never hit answers no; an incident naming no
 * protocol (FTX) is there, dated and on its chains, without a protocol link.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ingest, type IngestReport } from "../../src/ingest/ingest.ts";
import { NO_PROTOCOL, UNKNOWN_PROTOCOL } from "../../src/ingest/providers/defillama/parse-hacks.ts";
import { silentLogger } from "../../src/log.ts";
import { createServer } from "../../src/supervisor/assemble.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { dataDir } from "../../src/store/data-dir.ts";
import { defillamaFixtureFile, listsWithEuler, savedAnswers } from "../support/defillama-hacks.ts";
import { copyOfFixture, json, testConfig } from "../support/fixture.ts";

const TODAY = "2025-01-10";
const ENTITY = "https://ckg.example/id/";
const DEFILLAMA = "https://ckg.example/source/defillama";

let services: Supervisor;
let app: ReturnType<typeof createServer>;
let report: IngestReport;

beforeAll(async () => {
  const root = await copyOfFixture();
  const raw = savedAnswers({ ...listsWithEuler(), hacks: defillamaFixtureFile("hacks.json") }, TODAY);
  report = await ingest({ dir: dataDir(root), today: TODAY, source: { kind: "import", from: raw.root, providers: ["defillama"] }, log: silentLogger });
  services = await Supervisor.open(testConfig({ data_dir: root }), silentLogger);
  await services.start();
  app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
}, 180_000);
afterAll(async () => {
  await services?.close();
});

const post = async (path: string, body: unknown) =>
  json(await app.handle(new Request(`http://127.0.0.1:8402${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })));
async function sparql(query: string): Promise<{ data: Record<string, unknown>[]; boolean?: boolean }> {
  const answer = await post("/api/sparql", { query });
  expect(answer.status).toBe(200);
  return answer.body;
}
const explore = async (entity_name: string, extra: Record<string, unknown> = {}) => {
  const answer = await post("/api/explore", { entity_name, ...extra });
  expect(answer.status).toBe(200);
  return answer.body;
};

/** "Was this protocol exploited, when, for how much?" by the protocol's name, with where each answer comes from. */
const EXPLOITED = (name: string) => `
  SELECT ?incident ?day ?amountUsd ?technique ?source WHERE {
    ?protocol a ckg:Protocol ; schema:name "${name}" .
    GRAPH ?source { ?incident ckg:incidentOf ?protocol }
    ?incident ckg:occurredOn ?day ; ckg:amountUsd ?amountUsd .
    OPTIONAL { ?incident ckg:technique ?technique }
  } ORDER BY ?day`;

describe("security incidents after an ingest of DefiLlama's /hacks", () => {
  test("the ingest counts what it could not link, by reason, and the malformed incidents it rejected", () => {
    const defillama = report.providers.find((p) => p.id === "defillama")!;
    expect(defillama.left_out[NO_PROTOCOL]).toBe(2); // FTX; SushiSwap, listed without an id
    expect(defillama.left_out[UNKNOWN_PROTOCOL]).toBe(3); // Mirror twice, Nomad: not in these lists
    expect(defillama.rejected).toBe(4 + 1); // the fixture's four malformed incidents, and its broken protocol
  });

  test("SPARQL: was Euler exploited, when, for how much: from the graph, in DefiLlama's named graph", async () => {
    const euler = await sparql(EXPLOITED("Euler"));
    expect(euler.data).toEqual([
      { incident: `${ENTITY}security-incident/euler-v1-hack-2023-03-13`, day: "2023-03-13", amountUsd: 195000000, technique: "Flashloan Donate Function Logic Exploit", source: DEFILLAMA },
    ]);
    // The version DefiLlama names answers alike.
    expect((await sparql(EXPLOITED("Euler V1"))).data.map((r) => r.day)).toEqual(["2023-03-13"]);
    // A protocol that was never hit answers no.
    expect((await sparql(`ASK { ?i ckg:incidentOf ?p . ?p a ckg:Protocol ; schema:name "Lido" }`)).boolean).toBe(false);
    expect((await sparql(`ASK { ?i ckg:incidentOf ?p . ?p a ckg:Protocol ; schema:name "Euler" }`)).boolean).toBe(true);
  });

  test("SPARQL: an incident on a protocol of the reference data lands on that entity (Aave V3 and its family)", async () => {
    const rows = (await sparql(`SELECT ?p WHERE { ?i a ckg:SecurityIncident ; ckg:occurredOn "2026-03-12"^^xsd:date ; ckg:incidentOf ?p }`)).data.map((r) => r.p);
    expect(rows.sort()).toEqual([`${ENTITY}protocol/aave`, `${ENTITY}protocol/aave-v3`]);
  });

  test("SPARQL: an incident naming no protocol is there, dated, with its amount, target and chains, without a protocol link", async () => {
    const ftx = await sparql(`
      SELECT ?amountUsd ?target ?chain WHERE {
        ?i a ckg:SecurityIncident ; schema:name "FTX hack, 2022-11-12" ; ckg:amountUsd ?amountUsd ; ckg:targetType ?target ; ckg:incidentChain ?chain .
        FILTER NOT EXISTS { ?i ckg:incidentOf ?p }
      } ORDER BY ?chain`);
    expect(ftx.data).toEqual([
      { amountUsd: 400000000, target: "CEX", chain: `${ENTITY}chain/ethereum` },
      { amountUsd: 400000000, target: "CEX", chain: `${ENTITY}chain/solana` },
    ]);
    // Losses by year, across every incident (linked or not).
    const byYear = await sparql(`
      SELECT ?year (SUM(?amount) AS ?lost) (COUNT(?i) AS ?incidents) WHERE {
        ?i a ckg:SecurityIncident ; ckg:occurredOn ?day ; ckg:amountUsd ?amount . BIND(YEAR(?day) AS ?year)
      } GROUP BY ?year ORDER BY ?year`);
    expect(byYear.data).toEqual([
      { year: 2021, lost: 90500000, incidents: 2 },
      { year: 2022, lost: 580000000, incidents: 2 },
      { year: 2023, lost: 198000000, incidents: 2 },
      { year: 2026, lost: 850000, incidents: 1 },
    ]);
  });

  test("explore: a protocol's incidents under defi, each with its date, amount and kind, and its source", async () => {
    for (const name of ["Euler V1", "Euler"]) {
      const answer = await explore(name, { entity_type: "Protocol", focus: ["defi"] });
      const incidents = answer.relationships.defi.items.filter((i: { predicate: string }) => i.predicate === "incidentOf");
      expect(incidents, name).toEqual([
        {
          predicate: "incidentOf",
          label: "incident of",
          direction: "incoming",
          uri: `${ENTITY}security-incident/euler-v1-hack-2023-03-13`,
          name: "Euler V1 hack, 2023-03-13",
          type: "SecurityIncident",
          labels: ["SecurityIncident"],
          source: "defillama",
          details: {
            occurredOn: "2023-03-13",
            amountUsd: 195000000,
            returnedFundsUsd: 190000000,
            technique: "Flashloan Donate Function Logic Exploit",
            classification: "Protocol Logic",
            targetType: "DeFi Protocol",
            bridgeHack: false,
            programmingLanguage: "Solidity",
          },
        },
      ]);
      expect(answer.relationships.defi.synthetic).toBe(false);
    }
  });

  test("explore: an incident itself, its figures as attributes and the protocols it hit, each with its source", async () => {
    const answer = await explore("Euler V1 hack, 2023-03-13", { entity_type: "SecurityIncident" });
    expect(answer.entity).toMatchObject({ id: "security-incident/euler-v1-hack-2023-03-13", type: "SecurityIncident", synthetic: false });
    expect(answer.entity.attributes.occurredOn).toEqual([{ value: "2023-03-13", source: "defillama" }]);
    expect(answer.entity.attributes.amountUsd).toEqual([{ value: 195000000, source: "defillama" }]);
    const hit = answer.relationships.defi.items.filter((i: { predicate: string }) => i.predicate === "incidentOf");
    expect(hit.map((i: { name: string }) => i.name).sort()).toEqual(["Euler", "Euler V1"]);
    expect(hit.every((i: { direction: string; source: string }) => i.direction === "outgoing" && i.source === "defillama")).toBe(true);
    expect(answer.relationships.defi.items.filter((i: { predicate: string }) => i.predicate === "incidentChain").map((i: { name: string }) => i.name)).toEqual(["Ethereum"]);
    expect(answer.sources).toEqual(["defillama"]);
  });

  test("the schema endpoint lists the class and its predicates, incidentOf under defi", async () => {
    const schema = (await json(await app.handle(new Request("http://127.0.0.1:8402/api/schema")))).body;
    expect(schema.classes.find((c: { name: string }) => c.name === "SecurityIncident")).toMatchObject({ label: "Security incident", entity_type: false });
    const predicate = (name: string) => schema.predicates.find((p: { name: string }) => p.name === name);
    expect(predicate("incidentOf")).toMatchObject({ kind: "relationship", focus_category: "defi", domains: ["SecurityIncident"], ranges: ["Protocol"] });
    expect(predicate("incidentChain")).toMatchObject({ kind: "relationship", focus_category: "defi", ranges: ["Chain"] });
    for (const name of ["occurredOn", "technique", "classification", "targetType", "bridgeHack", "returnedFundsUsd"]) expect(predicate(name), name).toMatchObject({ kind: "attribute", domains: ["SecurityIncident"] });
    expect(predicate("amountUsd").domains).toContain("SecurityIncident");
  });
});
