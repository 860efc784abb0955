/**
 * @module graph/analytic/unsure
 * The translator's one way out: anything it cannot prove it answers exactly as the graph store
 * would (a construct it does not translate, a term it would have to guess the form of) throws
 * Unsure, and the query goes to the graph store instead.
 */
export class Unsure extends Error {}

export function unsure(why: string): never {
  throw new Unsure(why);
}

