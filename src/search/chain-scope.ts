/**
 * @module search/chain-scope
 * "decentralized exchange on solana": a chain named after "on" / "in" / "across" scopes the
 * question. Vectors alone blur it (every chain's name is one word among a document's dozens), so
 * the chain phrase is cut from the text that is embedded, and entities deployed on the chain rank
 * above those that are not. Deployments come from the snapshot's `deployedOn` facts, and a chain
 * is on its parent chain ("layer 3 chains on arbitrum").
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString, withConnection } from "../store/duckdb.ts";
import type { IndexedNode, NameIndex } from "./name-index.ts";

const SCOPE_WORDS = new Set(["on", "in", "across", "over"]);
/** Chain names are short: "Arbitrum One", "BNB Smart Chain Mainnet". */
const MAX_CHAIN_WORDS = 4;

export interface ChainScope {
  chains: IndexedNode[];
  /** The query without the scope phrase: what is asked for. */
  rest: string;
}

/** The chain a query is scoped to, if it names one after a scope word (and asks for something besides). */
export function findChainScope(query: string, names: NameIndex): ChainScope | undefined {
  const words = query.trim().split(/\s+/);
  for (let at = 1; at < words.length - 1; at++) {
    if (!SCOPE_WORDS.has(words[at]!.toLowerCase())) continue;
    // The longest name wins: "on arbitrum one" is Arbitrum One, not Arbitrum.
    for (let end = Math.min(words.length, at + 1 + MAX_CHAIN_WORDS); end > at + 1; end--) {
      const chains = names.exactAny(words.slice(at + 1, end).join(" "), (type) => type === "Chain");
      if (chains.length > 0) return { chains, rest: [...words.slice(0, at), ...words.slice(end)].join(" ") };
    }
  }
  return undefined;
}

/** Which entities are deployed on which chain; a layer 2 or 3 is "on" the chain it settles on. */
export class Deployments {
  private constructor(private readonly byChain: Map<string, Set<string>>) {}

  static async fromParquet(duck: DuckDBInstance, factsFile: string): Promise<Deployments> {
    const columns = await withConnection(duck, async (connection) => {
      const reader = await connection.runAndReadAll(
        `SELECT object AS chain, list(DISTINCT subject_id) AS entities FROM read_parquet(${sqlString(factsFile)})
         WHERE predicate IN ('deployedOn', 'parentChain') GROUP BY object`,
      );
      return reader.getColumnsObjectJS() as { chain: string[]; entities: string[][] };
    });
    return new Deployments(new Map(columns.chain.map((chain, i) => [chain, new Set(columns.entities[i])])));
  }

  /** Is the entity one of the chains, or deployed on one? */
  on(id: string, chains: readonly IndexedNode[]): boolean {
    return chains.some((chain) => chain.id === id || this.byChain.get(chain.id)?.has(id) === true);
  }
}
