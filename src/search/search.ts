/**
 * @module search/search
 * Search: exact names, symbols and aliases first (similarity 1.0), then entities by decreasing
 * similarity: close spellings of a name (1 - edit distance / length) and vector neighbours of the
 * query's meaning (cosine), each nudged by the entity's prominence. The type filter applies
 * before the top-k cut.
 *
 * total_count is the number of entities found: the exact matches plus every close spelling and
 * vector neighbour with similarity of at least MIN_SIMILARITY, looking at most SEARCH_DEPTH deep per entity type
 * (SCOPED_SEARCH_DEPTH when the query names a chain: "... on solana"; see chain-scope).
 */
import { z } from "zod";
import { ENTITY_TYPES, type EntityType, type NodeType } from "../graph/vocabulary.ts";
import { type Deployments, findChainScope } from "./chain-scope.ts";
import type { Embedder } from "./embedder.ts";
import type { NameIndex } from "./name-index.ts";
import { readIds } from "./vector-files.ts";
import type { VectorIndexes } from "./vector-index.ts";

export const MIN_SIMILARITY = 0.4;
/**
 * A name counts as a misspelling of the query up to about one wrong letter in four ("etherium",
 * "uniswp"); farther, "blockchain gaming" would find "Blockchain Capital" by spelling alone.
 */
const MIN_SPELLING_SIMILARITY = 0.75;
/** How deep the vector search looks per entity type (and so the most total_count can count beyond exact matches). */
export const SEARCH_DEPTH = 100;
/** A question scoped to a chain looks deeper, since entities elsewhere are set back by OFF_CHAIN. */
export const SCOPED_SEARCH_DEPTH = 400;
const OFF_CHAIN = 0.5;

export const searchInputSchema = z.strictObject({
  query: z.string().trim().min(1, "query must not be empty").max(500),
  limit: z.number().int().min(1).max(100).default(10),
  entity_types: z.array(z.enum(ENTITY_TYPES)).min(1).max(ENTITY_TYPES.length).optional(),
});
export type SearchInput = z.output<typeof searchInputSchema>;

export const searchAnswerSchema = z.object({
  status: z.literal("success"),
  query: z.string(),
  results: z.array(z.object({ uri: z.string(), name: z.string(), labels: z.array(z.string()), similarity: z.number() })),
  total_count: z.number().int(),
});
export type SearchAnswer = z.infer<typeof searchAnswerSchema>;

/**
 * Pools and people are many and alike (hundreds of "ETH staking" pools): for a question about a
 * kind of thing, protocols, tokens and organizations answer first. A type filter lifts this.
 */
const TYPE_PRIOR: Partial<Record<NodeType, number>> = { Pool: 0.8, Person: 0.95 };

/**
 * Similarity nudged by prominence (size, market cap: at most a tenth off) and the type prior:
 * among equally close matches the larger, better-known entity comes first.
 */
function rank(similarity: number, type: NodeType, prominence: number, filtered: boolean, offScope: boolean): number {
  const prior = (filtered ? 1 : (TYPE_PRIOR[type] ?? 1)) * (offScope ? OFF_CHAIN : 1);
  return similarity * (0.9 + 0.1 * prominence) * prior;
}

export interface SearchDeps {
  names: NameIndex;
  vectors: VectorIndexes;
  /** Each type's vector rows as positions in `names` (-1: not there), from namePositions. */
  positions: VectorPositions;
  embedder: Embedder;
  deployments: Deployments;
}

export type VectorPositions = ReadonlyMap<EntityType, Int32Array>;

/** Maps every vector row of a snapshot's search folder to its node's position in the name index, once. */
export function namePositions(searchDir: string, names: NameIndex): VectorPositions {
  return new Map(ENTITY_TYPES.map((type) => [type, Int32Array.from(readIds(searchDir, type), (id) => names.positionOf(id) ?? -1)]));
}

export async function search(deps: SearchDeps, input: SearchInput): Promise<SearchAnswer> {
  const { names } = deps;
  const types: readonly EntityType[] = input.entity_types ?? ENTITY_TYPES;
  const filtered = input.entity_types !== undefined;
  const accept = (type: NodeType) => (types as readonly string[]).includes(type);
  const exact = names.exactAny(input.query, accept);
  const exactPositions = new Set(exact.map((n) => names.positionOf(n.id)));

  // Candidates by position in the name index: best similarity each.
  const others = new Map<number, number>();
  const consider = (position: number | undefined, similarity: number) => {
    if (position === undefined || position < 0 || exactPositions.has(position) || Number.isNaN(similarity)) return;
    if ((others.get(position) ?? -1) < similarity) others.set(position, similarity);
  };
  for (const { node, similarity } of names.closeNames(input.query, accept, 20)) {
    if (similarity >= MIN_SPELLING_SIMILARITY) consider(names.positionOf(node.id), similarity);
  }
  const scope = findChainScope(input.query, names);
  const vector = await deps.embedder.embedQuery(scope?.rest ?? input.query);
  if (vector.some((v) => v !== 0)) {
    const depth = Math.max(scope ? SCOPED_SEARCH_DEPTH : SEARCH_DEPTH, input.limit);
    for (const hit of await deps.vectors.search(vector, depth, types)) consider(deps.positions.get(hit.type)?.[hit.row], hit.similarity);
  }
  const offScope = (position: number) => scope !== undefined && !deps.deployments.on(names.idAt(position), scope.chains);

  // The reported similarity is the ranking score itself, so results read in decreasing order.
  const ranked = Array.from(others, ([position, similarity]) => ({
    position,
    similarity: rank(similarity, names.typeAt(position), names.prominenceAt(position), filtered, offScope(position)),
  })).sort((a, b) => b.similarity - a.similarity);
  const results = [
    ...exact.map((node) => ({ node, similarity: 1 })),
    ...ranked.slice(0, input.limit).map((r) => ({ node: names.at(r.position), similarity: r.similarity })),
  ].slice(0, input.limit);
  return {
    status: "success",
    query: input.query,
    results: results.map(({ node, similarity }) => ({
      uri: node.uri,
      name: node.name,
      labels: node.labels,
      similarity: Math.round(similarity * 10_000) / 10_000,
    })),
    total_count: exact.length + ranked.filter((r) => r.similarity >= MIN_SIMILARITY).length,
  };
}
