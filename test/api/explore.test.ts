import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FOCUS_CATEGORIES } from "../../src/entities/vocabulary.ts";
import { explore as exploreEntity, resolveEntity } from "../../src/graph/explore.ts";
import { type Running, json, startServices } from "../support/fixture.ts";

let run: Running;
beforeAll(async () => {
  run = await startServices();
});
afterAll(() => run.close());

const explore = (body: unknown) => run.request("POST", "/api/explore", body).then(json);

/** Names of entities the test picks from the live snapshot with a real SPARQL query. */
async function firstName(sparql: string): Promise<string> {
  const { body } = await run.request("POST", "/api/sparql", { query: sparql }).then(json);
  return body.data[0].name;
}

describe("POST /api/explore", () => {
  test("groups every relationship under the ten focus categories, with sources", async () => {
    const { status, body } = await explore({ entity_name: "Ethereum" });
    expect(status).toBe(200);
    expect(body.entity.uri).toBe("https://ckg.example/id/chain/ethereum");
    expect(body.entity.type).toBe("Chain");
    expect(Object.keys(body.relationships).sort()).toEqual([...FOCUS_CATEGORIES].sort());
    expect(body.entity.attributes.chainKey).toEqual([{ value: "eip155:1", source: expect.any(String) }]);
    const lineage = body.relationships.lineage;
    expect(lineage.items.some((i: any) => i.predicate === "parentChain" && i.direction === "incoming" && i.name === "Arbitrum One")).toBe(true);
    for (const block of Object.values<any>(body.relationships)) {
      for (const item of block.items) {
        expect(item.source.length).toBeGreaterThan(0);
        expect(item.uri).toStartWith("https://ckg.example/id/");
      }
      // A block says at its top whether any of its links is synthetic demo data.
      expect(block.synthetic).toBe(block.items.some((i: any) => i.source === "synthetic-demo"));
    }
    expect(body.sources.length).toBeGreaterThan(0);
    // A real chain: generated protocols deploy on it (their facts, labelled), it is not generated itself.
    expect(body.entity.synthetic).toBe(false);
    expect(body.relationships.ecosystem.synthetic).toBe(true);
    // No series of its own: no figures, and the figure blocks say so instead of inventing any.
    expect(body.relationships.market.figures).toBeUndefined();
    expect(body.relationships.financial_metrics.figures_note).toContain("No time-series data yet");
  });

  test("hubs give the total and the first items, marked truncated", async () => {
    const { body } = await explore({ entity_name: "Ethereum", focus: ["ecosystem"] });
    const ecosystem = body.relationships.ecosystem;
    expect(Object.keys(body.relationships)).toEqual(["ecosystem"]);
    expect(ecosystem.count).toBeGreaterThan(ecosystem.items.length);
    expect(ecosystem.truncated).toBe(true);
  });

  test("names match case- and space-insensitively; URIs work too", async () => {
    const byName = await explore({ entity_name: "  ethereum " });
    const byUri = await explore({ entity_name: "https://ckg.example/id/chain/ethereum" });
    expect(byName.body.entity.uri).toBe(byUri.body.entity.uri);
  });

  test("a protocol shows its team, investors, chains and code", async () => {
    const name = await firstName(
      "SELECT ?name WHERE { ?round ckg:raisedBy ?p . ?p schema:name ?name ; ckg:hasRepository ?r . ?person ckg:founderOf ?p } LIMIT 1",
    );
    const { body } = await explore({ entity_name: name, entity_type: "Protocol" });
    expect(body.entity.type).toBe("Protocol");
    expect(body.entity.synthetic).toBe(true);
    for (const category of ["investment", "team", "ecosystem", "github"]) {
      expect(body.relationships[category].count).toBeGreaterThan(0);
    }
    expect(body.entity.attributes.category[0].source).toBe("synthetic-demo");
  });

  test("entity_type narrows the match, and a wrong type is 404 saying which types exist", async () => {
    const { status, body } = await explore({ entity_name: "Ethereum", entity_type: "Person" });
    expect(status).toBe(404);
    expect(body.error.code).toBe("entity_not_found");
    expect(body.error.message).toContain("Chain");
  });

  test("names resolve as search finds them: an alias or symbol works, the canonical entity first, the rest in other_matches", async () => {
    const tether = await explore({ entity_name: "tether", focus: ["market"] });
    expect(tether.status).toBe(200);
    expect(tether.body.entity).toMatchObject({ name: "Tether USD", type: "Token" });
    const usdt = await explore({ entity_name: "USDT", focus: ["market"] });
    expect(usdt.body.entity.uri).toBe(tether.body.entity.uri);
    expect(usdt.body.other_matches.length).toBeGreaterThan(2);
    expect(usdt.body.other_matches.map((m: any) => m.uri)).not.toContain(tether.body.entity.uri);
    expect((await explore({ entity_name: "Optimism", entity_type: "Chain", focus: ["lineage"] })).body.entity.name).toBe("OP Mainnet");
    expect((await explore({ entity_name: "coinbase", entity_type: "Exchange", focus: ["market"] })).body.entity.name).toBe("Coinbase Advanced");
  });

  test("two faces of one network are linked under lineage", async () => {
    const { body } = await explore({ entity_name: "Sei", entity_type: "Chain", focus: ["lineage"] });
    expect(body.relationships.lineage.items.some((i: any) => i.predicate === "sameNetworkAs" && i.name === "Sei Network")).toBe(true);
  });

  test("a repeated question gets the same answer; the focus and the name asked still shape it", async () => {
    const first = await explore({ entity_name: "Ethereum", focus: ["lineage", "ecosystem"] });
    const again = await explore({ entity_name: "Ethereum", focus: ["ecosystem", "lineage"] });
    expect(again.body).toEqual(first.body);
    const other = await explore({ entity_name: "Ethereum", focus: ["market"] });
    expect(Object.keys(other.body.relationships)).toEqual(["market"]);
    const byUri = await explore({ entity_name: first.body.entity.uri, focus: ["lineage", "ecosystem"] });
    expect(byUri.body.entity).toEqual(first.body.entity);
    expect(byUri.body.other_matches).toEqual([]);
  });

  test("the time-series is asked for figures only when a block that shows them is asked for", async () => {
    const live = run.services.snapshot();
    const asked: string[] = [];
    const deps = {
      facts: live.facts,
      names: live.names,
      ontology: live.ontology,
      ns: live.ns,
      syntheticSources: new Set<string>(),
      figures: (id: string) => {
        asked.push(id);
        return live.series.latestFigures(id);
      },
    };
    const name = await firstName("SELECT ?name WHERE { ?p a ckg:Protocol ; schema:name ?name } LIMIT 1");
    const protocol = resolveEntity(live.names, name, "Protocol");
    const team = await exploreEntity(deps, protocol, { entity_name: name, focus: ["team", "ecosystem"] });
    expect(asked).toEqual([]);
    expect(team.relationships.ecosystem!.count).toBeGreaterThan(0);
    const market = await exploreEntity(deps, protocol, { entity_name: name, focus: ["financial_metrics"] });
    expect(asked).toEqual([protocol.node.id]);
    expect(market.relationships.financial_metrics!.figures!.length).toBeGreaterThan(0);
  });

  test("an unknown name is 404 with the closest names", async () => {
    const { status, body } = await explore({ entity_name: "etherium" });
    expect(status).toBe(404);
    expect(body.error.code).toBe("entity_not_found");
    expect(body.error.details.suggestions.map((s: any) => s.name)).toContain("Ethereum");
  });

  test.each([
    [{ entity_name: "Ethereum", focus: ["gossip"] }, "focus"],
    [{ entity_name: "Ethereum", focus: [] }, "focus"],
    [{ entity_name: "Ethereum", entity_type: "Planet" }, "entity_type"],
    [{ entity_name: "" }, "entity_name"],
    [{ name: "Ethereum" }, "entity_name"],
  ])("bad input %p is 400 naming %s", async (input, field) => {
    const { status, body } = await explore(input);
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
    expect(JSON.stringify(body.error.details)).toContain(field);
  });
});
