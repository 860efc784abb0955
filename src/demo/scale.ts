/**
 * @module demo/scale
 * How many entities of each type a scale asks for. Real reference entities count towards the
 * targets; the synthetic generator fills the rest. `full` is the size docs/spec.md §1 states (more than
 * 586,000 entities, more than 8,200 protocols); `default` starts in seconds.
 */
import type { Scale } from "../config/settings.ts";

export interface ScalePlan {
  label: string;
  totalEntities: number;
  tokens: number;
  pools: number;
  persons: number;
  organizations: number;
  protocols: number;
  exchanges: number;
}

const TOTALS = { default: 30_000, full: 590_000 } as const;

/** Shares of the total by type; chains are real only and come on top. */
const SHARES = {
  tokens: 0.52,
  pools: 0.26,
  persons: 0.15,
  organizations: 0.05,
  protocols: 0.0155,
  exchanges: 0.0019,
} as const;

export function planScale(scale: Scale): ScalePlan {
  const totalEntities = typeof scale === "number" ? scale : TOTALS[scale];
  const count = (share: number, min: number) => Math.max(min, Math.round(totalEntities * share));
  return {
    label: String(scale),
    totalEntities,
    tokens: count(SHARES.tokens, 200),
    pools: count(SHARES.pools, 100),
    persons: count(SHARES.persons, 100),
    organizations: count(SHARES.organizations, 50),
    protocols: count(SHARES.protocols, 30),
    exchanges: count(SHARES.exchanges, 10),
  };
}
