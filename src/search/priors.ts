/**
 * @module search/priors
 * What moves a similarity besides the match itself, in every band: an entity's prominence and
 * its type's prior.
 */
import { NameIndex } from "../entities/name-index.ts";
import type { NodeType } from "../entities/vocabulary.ts";

/**
 * Pools and people are many and alike (hundreds of "ETH staking" pools): for a question about a
 * kind of thing, protocols, tokens and organizations answer first. A type filter lifts this.
 */
const TYPE_PRIOR: Partial<Record<NodeType, number>> = { Pool: 0.8, Person: 0.95 };
/** TYPE_PRIOR by type code (NameIndex.typeCodes), for loops over many matches; all 1 when filtered. */
export const PRIORS_BY_CODE = new Float32Array(256).fill(1);
for (const [type, prior] of Object.entries(TYPE_PRIOR)) PRIORS_BY_CODE[NameIndex.codeOf(type as NodeType)] = prior;
export const NO_PRIORS = new Float32Array(256).fill(1);

/** Prominence (size, lists, deployments) moves a similarity by at most a tenth. */
export const byProminence = (prominence: number) => 0.9 + 0.1 * prominence;

/**
 * Prominence and the type prior: among equally close matches the larger, better-known entity
 * comes first.
 */
export function nudge(type: NodeType, prominence: number, filtered: boolean): number {
  return byProminence(prominence) * (filtered ? 1 : (TYPE_PRIOR[type] ?? 1));
}

/** A match: a name-index position and its similarity. */
export interface Ranked {
  position: number;
  similarity: number;
}
