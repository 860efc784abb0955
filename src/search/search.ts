/**
 * @module search/search
 * Search in three bands, with similarities that mean the same thing for every query:
 * - 1.0: the query is an entity's name, symbol or alias (case, spaces and punctuation ignored),
 *   most prominent first.
 * - 0.80 to 0.99 (lexical): every word of the query is a word of the entity's name or an alias, a
 *   prefix of one, or a close spelling of one ("arbitrum" -> Arbitrum One, "arbitrm", "coinbsae"),
 *   or the whole query is a close spelling of the name ("uniswp"). Higher: rarer words matched
 *   exactly, more of the name covered, a more prominent entity.
 * - below 0.80 (meaning): the vector neighbours of the query's meaning, 0.8 x cosine (pulled up
 *   where an entity's own description holds the question's words), nudged by prominence, the type
 *   prior and the demo setback: 0.5 and more shares a good deal, under 0.3 little.
 * A query that names something (the whole name, alias or symbol of an entity, typos aside) is
 * answered from the names alone: no vector scan. Otherwise, when the name matches do not fill
 * `limit`, the meaning neighbours fill the rest. The type filter applies before the top-k cut.
 *
 * total_count is the number of entities found: every exact and lexical match, plus, when the
 * meaning neighbours were asked, every one with similarity of at least MIN_SIMILARITY, looking at
 * most SEARCH_DEPTH deep per entity type (SCOPED_SEARCH_DEPTH when the query names a chain, a
 * country or a peg: "... on solana", "korean exchange", "euro stablecoin"; see scope), and among
 * the entities scored besides: a small scope's, and those whose description holds much of the
 * question (search/description-index).
 */
import { z } from "zod";
import { ENTITY_TYPES, type EntityType, type NodeType } from "../entities/vocabulary.ts";
import { type ScopeFacts, type Scope, findScope } from "./scope.ts";
import type { DescriptionIndex } from "./description-index.ts";
import type { Embedder } from "./embedder.ts";
import { NameIndex, normalizeName } from "../entities/name-index.ts";
import type { VectorIndexes } from "./vector-index.ts";
import type { VectorRows } from "./vector-rows.ts";

export const MIN_SIMILARITY = 0.3;
/**
 * A name counts as a misspelling of the query up to about one wrong letter in four ("etherium",
 * "uniswp"); farther, "blockchain gaming" would find "Blockchain Capital" by spelling alone.
 */
const MIN_SPELLING_SIMILARITY = 0.75;
/** A whole-name misspelling weighs like a close spelling of each word (0.85 for one edit). */
const SPELLING_WEIGHT = 0.9;
/** Where the lexical tier starts; meaning neighbours stay below it. */
export const LEXICAL_FLOOR = 0.8;
const MEANING_CEILING = LEXICAL_FLOOR;
/**
 * How deep the vector search looks per entity type, unless `limit` asks for more (and so the most
 * total_count counts among meaning neighbours). Each extra row is rescored exactly in every scan
 * worker: 100 deep cost twice the time of 25 on the full data.
 */
export const SEARCH_DEPTH = 25;
/** A scoped question looks deeper, since entities outside are set back (IN_SCOPE). */
export const SCOPED_SEARCH_DEPTH = 150;
/** Closeness in a scoped question: IN_SCOPE + the rest x cosine inside the scope, IN_SCOPE x cosine outside. */
const IN_SCOPE = 0.5;
/**
 * In a question for what is a chain's own ("gas token of polygon"), what is only deployed there
 * stays in scope, set back by this: it comes first only when its meaning is much closer (by 0.3).
 */
const NOT_OWNED = 0.15;
/** A scope of at most this many entities has every one scored exactly (a dot product each). */
const MAX_SCOPE_SCORED = 5_000;

/**
 * How far an entity whose description holds the whole question is pulled from its cosine toward 1
 * (a share of the question, search/description-index, pulls that share of it). Chosen on the tune
 * half of the real-name set over ingested worlds: 0.6 to 0.7 is a plateau, 0.8 loses questions.
 */
const DESCRIPTION_PULL = 0.6;
/** Entities whose description holds at least this share of the question are scored even where the scan did not reach them... */
const MIN_DESCRIBED_SHARE = 0.5;
/** ...at most this many (each a dot product). */
const MAX_DESCRIBED_SCORED = 500;

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
/** TYPE_PRIOR by type code (NameIndex.typeCodes), for loops over many matches; all 1 when filtered. */
const PRIORS_BY_CODE = new Float32Array(256).fill(1);
for (const [type, prior] of Object.entries(TYPE_PRIOR)) PRIORS_BY_CODE[NameIndex.codeOf(type as NodeType)] = prior;
const NO_PRIORS = new Float32Array(256).fill(1);

/** Prominence (size, lists, deployments) moves a similarity by at most a tenth. */
const byProminence = (prominence: number) => 0.9 + 0.1 * prominence;

/**
 * Prominence and the type prior: among equally close matches the larger, better-known entity
 * comes first.
 */
function nudge(type: NodeType, prominence: number, filtered: boolean): number {
  return byProminence(prominence) * (filtered ? 1 : (TYPE_PRIOR[type] ?? 1));
}

/**
 * A generated demo entity stands in for real data and gives way to it: among close meanings the
 * real one comes first (a question about oracle networks answers Chainlink before the demo's many
 * "X Oracle" protocols, whose generated descriptions say just that). The demo's own order is unchanged.
 */
const DEMO_SETBACK = 0.9;

export interface SearchDeps {
  names: NameIndex;
  vectors: VectorIndexes;
  /** Vector rows to name-index positions and back, and exact scores of chosen rows. */
  rows: VectorRows;
  embedder: Embedder;
  scopes: ScopeFacts;
  /** The words of entities' own descriptions. */
  descriptions: DescriptionIndex;
  /** By name-index position: 1 where the entity is generated demo data (DEMO_SETBACK). */
  demo: Uint8Array;
}

export async function search(deps: SearchDeps, input: SearchInput): Promise<SearchAnswer> {
  const { names } = deps;
  const types: readonly EntityType[] = input.entity_types ?? ENTITY_TYPES;
  const filtered = input.entity_types !== undefined;
  const accept = (type: NodeType) => (types as readonly string[]).includes(type);
  const exact = names.exactAny(input.query, accept);
  const taken = new Set(exact.map((n) => names.positionOf(n.id)!));
  const wanted = Math.max(0, input.limit - exact.length);

  const lexical = lexicalMatches(names, input.query, accept, filtered, taken, wanted);
  const ranked = lexical.best;
  for (const r of ranked) taken.add(r.position);
  let found = exact.length + lexical.count;
  // A query that names something (an exact hit, or every word of some name) is answered from the
  // names alone, without a vector scan; so is one whose name matches fill the page. Otherwise
  // ("staking", "lending protocol") the meaning neighbours fill the rest, below the name matches.
  if (exact.length === 0 && !lexical.complete && found < input.limit) {
    const meaning = (await meaningMatches(deps, input, types, filtered)).filter((m) => !taken.has(m.position));
    ranked.push(...meaning);
    found += meaning.filter((r) => r.similarity >= MIN_SIMILARITY).length;
  }
  const best = topK(ranked, wanted);
  const results = [...exact.map((node) => ({ node, similarity: 1 })), ...best.map((r) => ({ node: names.at(r.position), similarity: r.similarity }))];
  return {
    status: "success",
    query: input.query,
    results: results.map(({ node, similarity }) => ({
      uri: node.uri,
      name: node.name,
      labels: node.labels,
      similarity: Math.round(similarity * 10_000) / 10_000,
    })),
    total_count: found,
  };
}

interface Ranked {
  position: number;
  similarity: number;
}

/**
 * Entities whose name or alias holds every word of the query (or a prefix or close spelling of
 * it), and whole names spelled close to the query ("uniswp", "arbitrumon"): the best `k` (other
 * than `exclude`) with their similarity in the lexical band, how many there are, and whether one
 * of them is a whole name or alias (`complete`). A word like "ethereum" is in 100,000 pool names:
 * the loop over them works on typed arrays and keeps only the best k.
 */
function lexicalMatches(
  names: NameIndex,
  query: string,
  accept: (type: NodeType) => boolean,
  filtered: boolean,
  exclude: Set<number>,
  k: number,
): { best: Ranked[]; count: number; complete: boolean } {
  const { typeCodes, prominences } = names;
  const priors = filtered ? NO_PRIORS : PRIORS_BY_CODE;
  const band = (score: number, position: number) =>
    LEXICAL_FLOOR + (1 - LEXICAL_FLOOR - 0.01) * score * byProminence(prominences[position]!) * priors[typeCodes[position]!]!;

  const words = names.words.match(query, names.typeTable(accept));
  let complete = false;
  let count = words.positions.length;
  const keys = new Float32Array(count);
  for (let i = 0; i < keys.length; i++) {
    // The exact matches are answered apart: they neither rank nor count here.
    if (exclude.size > 0 && exclude.has(words.positions[i]!)) {
      keys[i] = -1;
      count--;
      continue;
    }
    keys[i] = band(words.scores[i]!, words.positions[i]!);
    if (words.complete[i] === 1) complete = true;
  }
  const candidates = new Map<number, number>();
  for (const i of topIndices(keys, k)) if (keys[i]! >= 0) candidates.set(words.positions[i]!, keys[i]!);
  // One edit in a name of three letters or fewer is already below MIN_SPELLING_SIMILARITY.
  const spellings = normalizeName(query).length >= 4 ? names.closeNames(query, accept, 20) : [];
  const oneWord = query.trim().split(/\s+/).length === 1;
  for (const { node, similarity } of spellings) {
    const position = names.positionOf(node.id)!;
    if (similarity < MIN_SPELLING_SIMILARITY || exclude.has(position)) continue;
    if (!candidates.has(position)) count++;
    candidates.set(position, Math.max(candidates.get(position) ?? 0, band(similarity * SPELLING_WEIGHT, position)));
    // A lone misspelt word names what it is close to ("uniswp"); a phrase of real words close to a
    // name ("euro stablecoin", EUROe Stablecoin) may still ask for a kind of thing: meaning fills below.
    if (oneWord) complete = true;
  }
  const best = Array.from(candidates, ([position, similarity]) => ({ position, similarity }));
  return { best: topK(best, k), count, complete };
}

/** Indices of the k largest keys, best first, in one pass (k is small, the keys can be 100,000). */
function topIndices(keys: Float32Array, k: number): number[] {
  const best: number[] = [];
  if (k <= 0) return best;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (best.length === k && key <= keys[best[k - 1]!]!) continue;
    let at = best.length;
    while (at > 0 && keys[best[at - 1]!]! < key) at--;
    best.splice(at, 0, i);
    if (best.length > k) best.pop();
  }
  return best;
}

/** Vector neighbours of the query's meaning, scoped when the query names a chain, a country or a peg (scope). */
async function meaningMatches(deps: SearchDeps, input: SearchInput, types: readonly EntityType[], filtered: boolean): Promise<Ranked[]> {
  const { names } = deps;
  const scope = findScope(input.query, names, deps.scopes);
  const vector = await deps.embedder.embedQuery(scope?.rest ?? input.query);
  if (!vector.some((v) => v !== 0)) return [];
  const best = new Map<number, number>();
  const depth = Math.max(scope ? SCOPED_SEARCH_DEPTH : SEARCH_DEPTH, input.limit);
  for (const hit of await deps.vectors.search(vector, depth, types)) {
    const position = deps.rows.positionOf(hit.type, hit.row);
    if (position < 0 || Number.isNaN(hit.similarity)) continue;
    if ((best.get(position) ?? -1) < hit.similarity) best.set(position, hit.similarity);
  }
  // Entities the scan may not reach are scored exactly (a dot product each):
  const unit = unitLength(vector);
  const score = (position: number | undefined) => {
    if (position === undefined || best.has(position)) return;
    const type = names.typeAt(position);
    if (!(types as readonly string[]).includes(type)) return;
    const cosine = deps.rows.cosine(unit, position, type as EntityType);
    if (cosine !== undefined) best.set(position, cosine);
  };
  // those of a small scope (the one native coin of Ethereum is far down the neighbours of "native
  // coin" among thousands of such coins);
  if (scope) for (const id of deps.scopes.scoredMembers(scope, MAX_SCOPE_SCORED)) score(names.positionOf(id));
  // those whose own description holds the question's words (the learned model blurs rare words,
  // "gold", "circle"; a description says them).
  const described = deps.descriptions.match(scope?.rest ?? input.query);
  for (const position of strongest(described, MIN_DESCRIBED_SHARE, MAX_DESCRIBED_SCORED)) score(position);
  // In a scoped question every entity in scope ranks above every one outside: what is left of the
  // question once the scope is cut ("token" of "token pegged to the dollar") may say little.
  const closeness = (position: number, cosine: number) => {
    const share = described.get(position) ?? 0;
    const close = Math.max(0, cosine) + DESCRIPTION_PULL * share * (1 - Math.max(0, cosine));
    if (scope === undefined) return close;
    const id = names.idAt(position);
    if (!inScope(deps.scopes, scope, id)) return IN_SCOPE * close;
    const setBack = scope.kind === "chain" && scope.owned && !deps.scopes.owns(id, scope.chains) ? NOT_OWNED : 0;
    return IN_SCOPE - setBack + (1 - IN_SCOPE) * close;
  };
  return Array.from(best, ([position, cosine]) => ({
    position,
    similarity: MEANING_CEILING * closeness(position, cosine) * nudge(names.typeAt(position), names.prominenceAt(position), filtered) * (deps.demo[position] ? DEMO_SETBACK : 1),
  }));
}

/** Positions whose share is at least `min`, the `max` largest. */
function strongest(shares: Map<number, number>, min: number, max: number): number[] {
  const kept = [...shares].filter(([, share]) => share >= min);
  kept.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return kept.slice(0, max).map(([position]) => position);
}

function unitLength(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return norm === 0 || Math.abs(norm - 1) < 1e-6 ? vector : vector.map((x) => x / norm);
}

function inScope(facts: ScopeFacts, scope: Scope, id: string): boolean {
  return scope.kind === "chain" ? facts.on(id, scope.chains) : facts.has(id, scope.attribute, scope.value);
}

/** The k best by similarity, in decreasing order. */
function topK(items: Ranked[], k: number): Ranked[] {
  return topIndices(Float32Array.from(items, (item) => item.similarity), k).map((i) => items[i]!);
}
