/**
 * @module ingest/providers/defillama/parse-common
 * What the parsers share: reading saved answers, rejecting with a reason, prominence.
 */
import { z } from "zod";
import type { Attribute, Relation } from "../../../entities/vocabulary.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { dayOf, parseEach } from "../../connector.ts";
import { record, type Saved, savedSchema } from "./schemas.ts";
import { P } from "./keys.ts";

/** What parsing one part tells the next. */
export interface Known {
  /** Chain display names by DefiLlama's chain ids as used in address prefixes (`arbitrum`, `avax`). */
  chainByPrefix: Map<string, string>;
  /** The native token of a chain (coingecko key), by chain name. */
  nativeToken: Map<string, string>;
  /** Protocol slugs by protocol id (`2198`) and parent id (`parent#uniswap`): raises name protocols by id. */
  slugById: Map<string, string>;
  /** The slug of the top of each protocol's family (a child's parent), by protocol slug. */
  familyOf: Map<string, string>;
  /** The key of each protocol's (or family's) own token, by slug. */
  tokenOf: Map<string, string>;
}

/** DefiLlama chain ids whose display name is not the id in another case. */
export const CHAIN_PREFIX_ALIASES: Record<string, string> = {
  avax: "Avalanche",
  xdai: "Gnosis",
  era: "zkSync Era",
  optimism: "OP Mainnet",
  polygon_zkevm: "Polygon zkEVM",
  klaytn: "Kaia",
  hyperliquid: "Hyperliquid L1",
};

export const ZERO_ADDRESS = /^0x0{40}$/i;


export const label = (item: unknown, ...fields: string[]): string => {
  const r = record(item);
  for (const field of fields) if (typeof r[field] === "string" || typeof r[field] === "number") return JSON.stringify(r[field]);
  return "(unnamed)";
};

/** Where a parser's rejections go: the provider's output, or a reader that only wants to know why there is nothing. */
type Rejects = Pick<ProviderOutput, "reject">;

/** A saved answer's envelope, or undefined (rejected when present but unreadable). */
export function loadSaved(raw: RawStore, out: Rejects, rawKey: string): Saved | undefined {
  let value: unknown;
  try {
    value = raw.load(P, rawKey);
  } catch (error) {
    out.reject(rawKey, `unreadable saved answer: ${(error as Error).message}`);
    return undefined;
  }
  if (value === undefined) return undefined;
  const saved = savedSchema.safeParse(value);
  if (!saved.success) {
    out.reject(rawKey, "not a saved answer ({day, since, body})");
    return undefined;
  }
  return saved.data;
}

/** The list at `field` of a saved body (or the body itself when `field` is undefined); rejected when the answer has another shape. */
export function listOf(out: Rejects, rawKey: string, body: unknown, field?: string): unknown[] | undefined {
  const list = field === undefined ? body : record(body)[field];
  if (Array.isArray(list)) return list;
  out.reject(rawKey, field === undefined ? "answer is not a list" : `answer has no list "${field}"`);
  return undefined;
}

/** 1 for the largest, falling with rank; 0 without a size. */
export function prominenceByRank<T>(items: T[], size: (item: T) => number | null | undefined): Map<T, number> {
  const sized = items.filter((item) => (size(item) ?? 0) > 0).sort((a, b) => size(b)! - size(a)!);
  const result = new Map<T, number>(items.map((item) => [item, 0]));
  sized.forEach((item, rank) => result.set(item, Number((1 - rank / sized.length).toFixed(4))));
  return result;
}

export class Relations {
  private readonly seen = new Set<string>();
  readonly list: [Relation, string][] = [];
  add(relation: Relation, target: string | undefined): void {
    if (!target || this.seen.has(`${relation} ${target}`)) return;
    this.seen.add(`${relation} ${target}`);
    this.list.push([relation, target]);
  }
}

export function attributes(pairs: [Attribute, string | number | boolean | null | undefined][]): [Attribute, string | number | boolean][] {
  return pairs.filter((pair): pair is [Attribute, string | number | boolean] => pair[1] !== null && pair[1] !== undefined && pair[1] !== "");
}

export const usable = (text: string | null | undefined): string | undefined => (text && text.trim() && text.trim() !== "-" ? text.trim() : undefined);

/**
 * Rows for days after `since` only (DefiLlama returns whole histories), and never `except` (a day a
 * list answer's own row speaks for).
 */
export const after = (since: string | null, except?: string) => (date: string) => (since === null || date > since) && date !== except;

/** Every saved per-item history under `prefix` (one answer an item) whose body holds the list `field`. */
export function* savedHistories(raw: RawStore, out: ProviderOutput, prefix: string, field: string): Generator<{ id: string; rawKey: string; saved: Saved; points: unknown[] }> {
  for (const rawKey of raw.keys(P, prefix)) {
    const saved = loadSaved(raw, out, rawKey);
    const points = saved && listOf(out, rawKey, saved.body, field);
    if (saved && points) yield { id: rawKey.slice(prefix.length), rawKey, saved, points };
  }
}

/**
 * A history's points by day, oldest first: only days `keep` accepts, the last point of a day
 * winning (DefiLlama's histories end with the current hour); a malformed point is rejected.
 */
export function pointsByDay<T>(out: ProviderOutput, what: string, points: unknown[], schema: z.ZodType<T>, timeOf: (point: T) => unknown, keep: (day: string) => boolean): [string, T][] {
  const byDay = new Map<string, T>();
  for (const point of parseEach(points, schema, (_, issue) => out.reject(`${what} point`, issue))) {
    const day = dayOf(timeOf(point));
    if (!day) out.reject(`${what} point`, "not a time");
    else if (keep(day)) byDay.set(day, point);
  }
  return [...byDay].sort(([a], [b]) => (a < b ? -1 : 1));
}
