/**
 * @module search/meaning
 * The meaning band (below LEXICAL_FLOOR): the vector neighbours of a question, scoped when it names
 * a chain, a country or a peg (scope), pulled up where an entity's own description holds the
 * question's words (description-index), nudged by prominence, the type prior and the demo setback.
 */
import type { EntityType } from "../entities/vocabulary.ts";
import type { NameIndex } from "../entities/name-index.ts";
import type { DescriptionIndex } from "./description-index.ts";
import type { Embedder } from "./embedder.ts";
import { nudge } from "./priors.ts";
import { type ScopeFacts, findScope } from "./scope.ts";
import type { VectorIndexes } from "./vector-index.ts";
import type { VectorRows } from "./vector-rows.ts";

/** Where the lexical band starts; meaning stays below it. */
export const MEANING_CEILING = 0.8;
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

/** The meaning band's entities (name-index positions) and their similarities, in the order they were first reached. */
export interface MeaningMatches {
  positions: Int32Array;
  similarities: Float64Array;
}
const NO_MATCHES: MeaningMatches = { positions: new Int32Array(0), similarities: new Float64Array(0) };

/** Vector neighbours of the query's meaning, scoped when the query names a chain, a country or a peg (scope). */
export async function meaningMatches(deps: SearchDeps, input: { query: string; limit: number }, types: readonly EntityType[], filtered: boolean): Promise<MeaningMatches> {
  const { names } = deps;
  const scope = findScope(input.query, names, deps.scopes);
  const vector = await deps.embedder.embedQuery(scope?.rest ?? input.query);
  if (!vector.some((v) => v !== 0)) return NO_MATCHES;
  const depth = Math.max(scope ? SCOPED_SEARCH_DEPTH : SEARCH_DEPTH, input.limit);
  const hits = await deps.vectors.search(vector, depth, types);
  // From here on nothing awaits: the scratch arrays are this question's alone until it returns.
  const best = scratch.open(names.size);
  try {
    for (const hit of hits) {
      const position = deps.rows.positionOf(hit.type, hit.row);
      if (position < 0 || Number.isNaN(hit.similarity)) continue;
      if (!(best.cosineAt(position) >= hit.similarity)) best.setCosine(position, hit.similarity);
    }
    // Entities the scan may not reach are scored exactly (a dot product each):
    const unit = unitLength(vector);
    const score = (position: number) => {
      if (best.has(position)) return;
      const type = names.typeAt(position);
      if (!(types as readonly string[]).includes(type)) return;
      const cosine = deps.rows.cosine(unit, position, type as EntityType);
      if (cosine !== undefined && !Number.isNaN(cosine)) best.setCosine(position, cosine); // NaN marks "none" in the scratch
    };
    // those of a small scope (the one native coin of Ethereum is far down the neighbours of "native
    // coin" among thousands of such coins);
    if (scope) for (const position of deps.scopes.scoredMembers(scope, MAX_SCOPE_SCORED)) score(position);
    // those whose own description holds the question's words (the learned model blurs rare words,
    // "gold", "circle"; a description says them).
    const described = deps.descriptions.match(scope?.rest ?? input.query);
    const strongest = described.strongest(MIN_DESCRIBED_SHARE, MAX_DESCRIBED_SCORED);
    const shares = new Map<number, number>();
    strongest.positions.forEach((position, i) => {
      score(position);
      shares.set(position, strongest.shares[i]!);
    });
    // In a scoped question every entity in scope ranks above every one outside: what is left of the
    // question once the scope is cut ("token" of "token pegged to the dollar") may say little.
    const inScope = scope && deps.scopes.inScope(scope);
    const ownedBy = scope?.kind === "chain" && scope.owned ? deps.scopes.ownedBy(scope.chains) : undefined;
    const closeness = (position: number, cosine: number) => {
      const share = shares.get(position) ?? described.get(position) ?? 0;
      const close = Math.max(0, cosine) + DESCRIPTION_PULL * share * (1 - Math.max(0, cosine));
      if (scope === undefined) return close;
      if (!inScope!(position)) return IN_SCOPE * close;
      const setBack = ownedBy && !ownedBy(position) ? NOT_OWNED : 0;
      return IN_SCOPE - setBack + (1 - IN_SCOPE) * close;
    };
    const positions = new Int32Array(best.count);
    const similarities = new Float64Array(best.count);
    for (let i = 0; i < best.count; i++) {
      const position = (positions[i] = best.positionAt(i));
      similarities[i] = MEANING_CEILING * closeness(position, best.cosineAt(position)) * nudge(names.typeAt(position), names.prominenceAt(position), filtered) * (deps.demo[position] ? DEMO_SETBACK : 1);
    }
    return { positions, similarities };
  } finally {
    best.close();
  }
}

/**
 * The cosines of one question's entities by name-index position, in typed arrays kept from question
 * to question: a scoped question scores thousands of entities, and a Map of them cost more than
 * their dot products. Positions keep the order they were first given (a tie at the page's cut goes
 * to the earlier one, search.ts).
 */
class PositionScratch {
  private cosines = new Float64Array(0);
  private order = new Int32Array(0);
  count = 0;

  /** Empty, with room for `size` positions. */
  open(size: number): this {
    if (this.count !== 0) throw new Error("meaning: the position scratch is in use"); // an await crept in
    if (this.cosines.length < size) {
      this.cosines = new Float64Array(size).fill(Number.NaN);
      this.order = new Int32Array(size);
    }
    return this;
  }

  /** Clears what this question set, for the next. */
  close(): void {
    for (let i = 0; i < this.count; i++) this.cosines[this.order[i]!] = Number.NaN;
    this.count = 0;
  }

  has(position: number): boolean {
    return !Number.isNaN(this.cosines[position]!);
  }

  /** NaN when the position has none. */
  cosineAt(position: number): number {
    return this.cosines[position]!;
  }

  setCosine(position: number, cosine: number): void {
    if (!this.has(position)) this.order[this.count++] = position;
    this.cosines[position] = cosine;
  }

  positionAt(i: number): number {
    return this.order[i]!;
  }
}
const scratch = new PositionScratch();

function unitLength(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  return norm === 0 || Math.abs(norm - 1) < 1e-6 ? vector : vector.map((x) => x / norm);
}
