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
import { type NameIndex, normalizeName } from "../entities/name-index.ts";
import { MEANING_CEILING, type SearchDeps, meaningMatches } from "./meaning.ts";
import { NO_PRIORS, PRIORS_BY_CODE, type Ranked, byProminence } from "./priors.ts";

export { SCOPED_SEARCH_DEPTH, SEARCH_DEPTH, type SearchDeps } from "./meaning.ts";

export const MIN_SIMILARITY = 0.3;
/**
 * A name counts as a misspelling of the query up to about one wrong letter in four ("etherium",
 * "uniswp"); farther, "blockchain gaming" would find "Blockchain Capital" by spelling alone.
 */
const MIN_SPELLING_SIMILARITY = 0.75;
/** A whole-name misspelling weighs like a close spelling of each word (0.85 for one edit). */
const SPELLING_WEIGHT = 0.9;
/** Where the lexical tier starts; meaning neighbours stay below it. */
const LEXICAL_FLOOR = MEANING_CEILING;

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

export async function search(deps: SearchDeps, input: SearchInput): Promise<SearchAnswer> {
  const { names } = deps;
  const types: readonly EntityType[] = input.entity_types ?? ENTITY_TYPES;
  const filtered = input.entity_types !== undefined;
  const accept = (type: NodeType) => (types as readonly string[]).includes(type);
  // Every entity named exactly counts; at most `limit` are answered, the most prominent first.
  const named = names.exactAny(input.query, accept);
  const exact = named.slice(0, input.limit);
  const taken = new Set(named.map((n) => names.positionOf(n.id)!));
  const wanted = Math.max(0, input.limit - exact.length);

  const lexical = lexicalMatches(names, input.query, accept, filtered, taken, wanted);
  for (const r of lexical.best) taken.add(r.position);
  let found = named.length + lexical.count;
  // A query that names something (an exact hit, or every word of some name) is answered from the
  // names alone, without a vector scan; so is one whose name matches fill the page. Otherwise
  // ("staking", "lending protocol") the meaning neighbours fill the rest, below the name matches.
  let best = lexical.best;
  if (named.length === 0 && !lexical.complete && found < input.limit) {
    const meaning = await meaningMatches(deps, input, types, filtered);
    // The name matches, then the meaning band's entities that are not among them, in one list for
    // the cut (a scoped question's thousands in typed arrays, not one object each).
    const positions = new Int32Array(lexical.best.length + meaning.positions.length);
    const similarities = new Float64Array(positions.length);
    let count = 0;
    for (const r of lexical.best) (positions[count] = r.position), (similarities[count++] = r.similarity);
    for (let i = 0; i < meaning.positions.length; i++) {
      if (taken.has(meaning.positions[i]!)) continue;
      positions[count] = meaning.positions[i]!;
      similarities[count++] = meaning.similarities[i]!;
      if (meaning.similarities[i]! >= MIN_SIMILARITY) found++;
    }
    best = topIndices(Float32Array.from(similarities.subarray(0, count)), wanted).map((i) => ({ position: positions[i]!, similarity: similarities[i]! }));
  }
  best.sort((a, b) => b.similarity - a.similarity || tieBreak(names, a.position, b.position));
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
  const spellings = normalizeName(query).length >= 4 ? names.closeNames(query, accept, 20, MIN_SPELLING_SIMILARITY) : [];
  const oneWord = query.trim().split(/\s+/).length === 1;
  for (const { node, similarity } of spellings) {
    const position = names.positionOf(node.id)!;
    if (similarity < MIN_SPELLING_SIMILARITY || exclude.has(position)) continue;
    // Counted once: a name found both by its words and by its spelling is one match, whatever `k` kept.
    if (!candidates.has(position) && !words.positions.includes(position)) count++;
    candidates.set(position, Math.max(candidates.get(position) ?? 0, band(similarity * SPELLING_WEIGHT, position)));
    // A lone misspelt word names what it is close to ("uniswp"); a phrase of real words close to a
    // name ("euro stablecoin", EUROe Stablecoin) may still ask for a kind of thing: meaning fills below.
    if (oneWord) complete = true;
  }
  const best = Array.from(candidates, ([position, similarity]) => ({ position, similarity }));
  return { best: topK(best, k), count, complete };
}

/** Among equal similarities: the more prominent first, then by name (then id, so the order is total). */
function tieBreak(names: NameIndex, a: number, b: number): number {
  return names.prominenceAt(b) - names.prominenceAt(a) || names.nameAt(a).localeCompare(names.nameAt(b)) || (names.idAt(a) < names.idAt(b) ? -1 : 1);
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

/** The k best by similarity, in decreasing order. */
function topK(items: Ranked[], k: number): Ranked[] {
  return topIndices(Float32Array.from(items, (item) => item.similarity), k).map((i) => items[i]!);
}
