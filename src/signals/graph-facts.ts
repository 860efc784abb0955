/**
 * @module signals/graph-facts
 * The graph relations the detectors read, loaded once per scan from the snapshot's facts.parquet
 * (not through SPARQL: a scan reads whole relations, which a columnar scan does in a second).
 * Investors reach a token through the protocol that issues it; a token's sector is its issuer's
 * category; a protocol's developers are the contributors to its repositories.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import { rowsOf } from "./detector.ts";

export interface GraphFacts {
  /** Token -> the protocol that issues it. */
  issuerOf: Map<string, string>;
  /** Protocol -> its investors (organizations and people), sorted. */
  investorsOf: Map<string, string[]>;
  /** Protocol -> its category (sector). */
  sectorOf: Map<string, string>;
  /** Protocol -> people contributing to its repositories. */
  developersOf: Map<string, string[]>;
  /** Display name of an entity id (the id itself when unknown, e.g. a wallet). */
  name(id: string): string;
}

export async function loadGraphFacts(c: DuckDBConnection): Promise<GraphFacts> {
  const pairs = async (sql: string) => rowsOf<{ a: string; b: string }>(c, sql);
  const group = (rows: { a: string; b: string }[]) => {
    const map = new Map<string, string[]>();
    for (const { a, b } of rows) {
      const list = map.get(a);
      if (list) list.push(b);
      else map.set(a, [b]);
    }
    return map;
  };
  const issuerOf = new Map(
    (await pairs(`SELECT subject_id AS a, object AS b FROM facts WHERE predicate = 'issuedBy' AND starts_with(object, 'protocol/') ORDER BY a, b`)).map((r) => [r.a, r.b]),
  );
  const investorsOf = group(await pairs(`SELECT DISTINCT object AS a, subject_id AS b FROM facts WHERE predicate = 'investedIn' ORDER BY a, b`));
  const sectorOf = new Map(
    (await pairs(`SELECT subject_id AS a, min(object) AS b FROM facts WHERE predicate = 'category' AND starts_with(subject_id, 'protocol/') GROUP BY a`)).map((r) => [r.a, r.b]),
  );
  const developersOf = group(
    await pairs(`SELECT DISTINCT r.subject_id AS a, d.subject_id AS b
      FROM facts r JOIN facts d ON d.predicate = 'contributesTo' AND d.object = r.object
      WHERE r.predicate = 'hasRepository' AND starts_with(r.subject_id, 'protocol/') ORDER BY a, b`),
  );
  const names = new Map((await pairs(`SELECT id AS a, name AS b FROM entities`)).map((r) => [r.a, r.b]));
  return { issuerOf, investorsOf, sectorOf, developersOf, name: (id) => names.get(id) ?? id };
}

/** Tokens with the investors of their issuing protocol (only tokens that have any). */
export function investorsOfTokens(graph: GraphFacts): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [token, protocol] of graph.issuerOf) {
    const investors = graph.investorsOf.get(protocol);
    if (investors && investors.length > 0) out.set(token, investors);
  }
  return out;
}

/**
 * Token pairs and how many investors they share, for pairs sharing at least `min`. Counted through
 * each investor's portfolio, so the work follows the number of co-investments, not tokens squared.
 * Two tokens of one issuer share all its investors by construction; only pairs of issuers count.
 */
export function sharedInvestorPairs(graph: GraphFacts, min: number): Map<string, { a: string; b: string; shared: string[] }> {
  const byInvestor = new Map<string, string[]>();
  for (const [token, investors] of investorsOfTokens(graph)) {
    for (const investor of investors) {
      const list = byInvestor.get(investor);
      if (list) list.push(token);
      else byInvestor.set(investor, [token]);
    }
  }
  const pairs = new Map<string, { a: string; b: string; shared: string[] }>();
  for (const [investor, tokens] of byInvestor) {
    tokens.sort();
    for (let i = 0; i < tokens.length; i++) {
      for (let j = i + 1; j < tokens.length; j++) {
        if (graph.issuerOf.get(tokens[i]!) === graph.issuerOf.get(tokens[j]!)) continue;
        const key = `${tokens[i]}|${tokens[j]}`;
        const pair = pairs.get(key);
        if (pair) pair.shared.push(investor);
        else pairs.set(key, { a: tokens[i]!, b: tokens[j]!, shared: [investor] });
      }
    }
  }
  for (const [key, pair] of pairs) if (pair.shared.length < min) pairs.delete(key);
  return pairs;
}
