/**
 * @module signals/graph-facts
 * The graph relations the detectors read, loaded once per scan from the snapshot's facts.parquet
 * (not through SPARQL: a scan reads whole relations, which a columnar scan does in a second), as
 * maps for graph algorithms and as small tables (`token_issuer`, `protocol_sector`) for SQL detectors.
 * Investors reach a token through the protocol that issues it; a token's sector is its issuer's
 * category; a protocol's developers are the contributors to its repositories.
 *
 * A fact of a synthetic source counts only between generated entities: the demo generator makes
 * up investors and developers of its own protocols, and a signal about a real entity must never
 * rest on one (a made-up fund "investing" in a real protocol would make a real co-investment
 * signal). Real facts count whoever they name.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { sqlString } from "../store/duckdb.ts";
import { append, rowsOf } from "./kit.ts";

export interface GraphFacts {
  /** Token -> the protocol that issues it. */
  issuerOf: Map<string, string>;
  /** Protocol -> its investors (organizations and people), sorted. */
  investorsOf: Map<string, string[]>;
  /** Protocol -> its category (sector). */
  sectorOf: Map<string, string>;
  /** Protocol -> people contributing to its repositories. */
  developersOf: Map<string, string[]>;
  /** Protocol -> its repositories. */
  repositoriesOf: Map<string, string[]>;
  /** Protocol -> the top of its family (its parent protocol's top; itself when it has none). */
  familyOf: Map<string, string>;
  /** Display name of an entity id (the id itself when unknown, e.g. a wallet). */
  name(id: string): string;
  /** The source an entity comes from (undefined when it is not an entity of the graph, e.g. a wallet). */
  sourceOf(id: string): string | undefined;
}

/** `syntheticSources`: ids of the snapshot's sources that are generated demo data. */
export async function loadGraphFacts(c: DuckDBConnection, syntheticSources: string[]): Promise<GraphFacts> {
  const pairs = async (sql: string) => rowsOf<{ a: string; b: string }>(c, sql);
  const group = (rows: { a: string; b: string }[]) => {
    const map = new Map<string, string[]>();
    for (const { a, b } of rows) append(map, a, b);
    return map;
  };
  const synthetic = syntheticSources.length > 0 ? syntheticSources.map(sqlString).join(", ") : "NULL";
  await c.run(`CREATE TEMP TABLE real_entities AS SELECT id FROM entities WHERE source NOT IN (${synthetic})`);
  await c.run(`CREATE TEMP VIEW relations AS SELECT * FROM facts
    WHERE source NOT IN (${synthetic}) OR (subject_id NOT IN (SELECT id FROM real_entities) AND object NOT IN (SELECT id FROM real_entities))`);
  // The relations SQL detectors join too: defined once, kept as temporary tables of the scan's session.
  await c.run(`CREATE TEMP TABLE token_issuer AS
    SELECT subject_id AS token, min(object) AS protocol FROM relations WHERE predicate = 'issuedBy' AND starts_with(object, 'protocol/') GROUP BY subject_id`);
  // A family's top (DefiLlama's parent protocols) has no category of its own: its sector is its
  // children's most common one (the issuer of a family's token is its top).
  await c.run(`CREATE TEMP TABLE protocol_sector AS
    WITH own AS (SELECT subject_id AS protocol, min(object) AS sector FROM relations WHERE predicate = 'category' AND starts_with(subject_id, 'protocol/') GROUP BY subject_id),
    children AS (
      SELECT p.object AS protocol, o.sector, count(*) AS n FROM relations p JOIN own o ON o.protocol = p.subject_id
      WHERE p.predicate = 'parentProtocol' AND p.object NOT IN (SELECT protocol FROM own) GROUP BY ALL)
    SELECT protocol, sector FROM own
    UNION ALL SELECT protocol, sector FROM children QUALIFY row_number() OVER (PARTITION BY protocol ORDER BY n DESC, sector) = 1`);
  const issuerOf = new Map((await pairs(`SELECT token AS a, protocol AS b FROM token_issuer ORDER BY a`)).map((r) => [r.a, r.b]));
  const investorsOf = group(await pairs(`SELECT DISTINCT object AS a, subject_id AS b FROM relations WHERE predicate = 'investedIn' ORDER BY a, b`));
  const sectorOf = new Map((await pairs(`SELECT protocol AS a, sector AS b FROM protocol_sector`)).map((r) => [r.a, r.b]));
  const developersOf = group(
    await pairs(`SELECT DISTINCT r.subject_id AS a, d.subject_id AS b
      FROM relations r JOIN relations d ON d.predicate = 'contributesTo' AND d.object = r.object
      WHERE r.predicate = 'hasRepository' AND starts_with(r.subject_id, 'protocol/') ORDER BY a, b`),
  );
  const repositoriesOf = group(await pairs(`SELECT DISTINCT subject_id AS a, object AS b FROM relations WHERE predicate = 'hasRepository' AND starts_with(subject_id, 'protocol/') ORDER BY a, b`));
  const parentOf = new Map((await pairs(`SELECT subject_id AS a, min(object) AS b FROM relations WHERE predicate = 'parentProtocol' GROUP BY subject_id`)).map((r) => [r.a, r.b]));
  const familyOf = new Map<string, string>();
  for (const protocol of parentOf.keys()) {
    let top = protocol;
    // A family is shallow; the bound only guards against a cycle in bad data.
    for (let depth = 0; depth < 8 && parentOf.has(top); depth++) top = parentOf.get(top)!;
    familyOf.set(protocol, top);
  }
  const entities = await rowsOf<{ id: string; name: string; source: string }>(c, `SELECT id, name, source FROM entities`);
  const names = new Map(entities.map((r) => [r.id, r.name]));
  const sources = new Map(entities.map((r) => [r.id, r.source]));
  return { issuerOf, investorsOf, sectorOf, developersOf, repositoriesOf, familyOf, name: (id) => names.get(id) ?? id, sourceOf: (id) => sources.get(id) };
}

/** Tokens with the investors of their issuing protocol (only tokens that have any). */
function investorsOfTokens(graph: GraphFacts): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [token, protocol] of graph.issuerOf) {
    const investors = graph.investorsOf.get(protocol);
    if (investors && investors.length > 0) out.set(token, investors);
  }
  return out;
}

/**
 * Pairs of members that share at least `min` groups (tokens sharing investors, protocols sharing
 * developers), counted through each group's members, so the work follows the memberships, not
 * members squared. `skip` leaves out pairs that share by construction.
 */
export function pairsSharing(
  membersOf: Map<string, string[]>,
  min: number,
  skip: (a: string, b: string) => boolean = () => false,
): { a: string; b: string; shared: string[] }[] {
  const pairs = new Map<string, { a: string; b: string; shared: string[] }>();
  for (const [group, unsorted] of membersOf) {
    const members = [...unsorted].sort();
    for (let i = 0; i < members.length; i++) {
      for (let j = i + 1; j < members.length; j++) {
        const a = members[i]!;
        const b = members[j]!;
        if (skip(a, b)) continue;
        const key = `${a}|${b}`;
        const pair = pairs.get(key);
        if (pair) pair.shared.push(group);
        else pairs.set(key, { a, b, shared: [group] });
      }
    }
  }
  return [...pairs.values()].filter((p) => p.shared.length >= min);
}

/** Members of each group, from groups of each member. */
export function invert(groupsOf: Map<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [member, groups] of groupsOf) for (const group of groups) append(out, group, member);
  return out;
}

/** Token pairs whose issuers share at least `min` investors; two tokens of one issuer share all its investors by construction and are left out. */
export function sharedInvestorPairs(graph: GraphFacts, min: number): { a: string; b: string; shared: string[] }[] {
  return pairsSharing(invert(investorsOfTokens(graph)), min, (a, b) => graph.issuerOf.get(a) === graph.issuerOf.get(b));
}
