/**
 * @module ingest/providers/coingecko/saved
 * Reading CoinGecko's saved answers: the latest day a list was saved on, an answer (an unreadable
 * one rejected), and a record's id as a rejection names it.
 */
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput } from "../../records.ts";
import { isDay, P } from "./keys.ts";

/** A record's id as a rejection names it (`"bitcoin"`, or `null`). */
export function idOf(item: unknown): string {
  const id = item && typeof item === "object" ? (item as { id?: unknown }).id : undefined;
  return JSON.stringify(id ?? null);
}

/** A saved answer, or undefined (with a rejection, when `out` is given) when the file cannot be read. */
export function load(raw: RawStore, out: ProviderOutput | undefined, k: string): unknown {
  try {
    return raw.load(P, k);
  } catch (error) {
    out?.reject(k, `unreadable saved answer: ${(error as Error).message}`);
    return undefined;
  }
}

/** The latest day saved under `<prefix>/<day>`. */
export function latestDay(raw: RawStore, prefix: string): string | undefined {
  const days = raw
    .keys(P, `${prefix}/`)
    .map((k) => k.slice(prefix.length + 1).split("/")[0]!)
    .filter(isDay);
  return days.sort().at(-1);
}
