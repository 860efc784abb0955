/**
 * @module ingest/connector
 * The contract of a provider connector. `fetch` downloads (only what is missing: saved answers are
 * skipped, histories start after the last stored day) and saves every answer in the raw store;
 * `parse` reads the saved answers and never the network, so an offline import and an online ingest
 * parse alike. Malformed records are rejected with a reason, never thrown.
 *
 * The kit every connector parses with: `zodIssue` (a rejection's reason), `parseEach` (a list's
 * records through a schema, the malformed ones rejected), `dayOf` and `unixOf` (provider times).
 */
import type { z } from "zod";
import type { SourceInfo } from "../dataset/world.ts";
import type { Logger } from "../log.ts";
import type { ProviderHttp } from "./http.ts";
import type { RawStore } from "./raw-store.ts";
import type { ProviderId, ProviderOutput } from "./records.ts";

export interface ProviderSettings {
  /** Base URLs by name (a provider may have several hosts: DefiLlama api, yields, stablecoins). */
  urls: Record<string, string>;
  apiKey?: string;
}

export interface FetchContext {
  http: ProviderHttp;
  raw: RawStore;
  settings: ProviderSettings;
  log: Logger;
  /** The day the run speaks for (UTC, YYYY-MM-DD): the end of every history range. */
  today: string;
  /** Most detail requests per list (protocol histories, coin charts, ...): the largest first. */
  detailLimit: number;
  /** The last day already stored for a history (from earlier runs), so only later days are asked for. */
  since(series: string): string | undefined;
  /** Reports progress of the current step. */
  progress(done: number, total: number): void;
}

export interface Connector {
  id: ProviderId;
  source: SourceInfo;
  fetch(ctx: FetchContext): Promise<void>;
  parse(raw: RawStore, out: ProviderOutput): void;
}

/** A failed parse's first issue, with its path, as the reason a record is rejected for. */
export function zodIssue(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return "invalid";
  return first.path.length > 0 ? `${first.path.join(".")}: ${first.message}` : first.message;
}

/**
 * Each item of a provider's list that `schema` accepts, parsed. Any other item goes to `onReject`
 * with its first issue (usually `out.reject(what, issue)`), or is skipped silently without one.
 * Lazy: a loop that stops early leaves the rest unread and unreported.
 */
export function* parseEach<T>(items: Iterable<unknown>, schema: z.ZodType<T>, onReject?: (item: unknown, issue: string) => void): Generator<T> {
  for (const item of items) {
    const parsed = schema.safeParse(item);
    if (parsed.success) yield parsed.data;
    else onReject?.(item, zodIssue(parsed.error));
  }
}

/** Unix seconds or milliseconds (as providers give times), or an ISO string, as a UTC day (YYYY-MM-DD); undefined when not a time. */
export function dayOf(value: unknown): string | undefined {
  let ms: number;
  if (typeof value === "number" && Number.isFinite(value)) ms = value < 1e11 ? value * 1000 : value;
  else if (typeof value === "string" && /^\d+$/.test(value)) return dayOf(Number(value));
  else if (typeof value === "string") ms = Date.parse(value);
  else return undefined;
  if (!Number.isFinite(ms)) return undefined;
  return new Date(ms).toISOString().slice(0, 10);
}

/** The unix second a UTC day (YYYY-MM-DD) starts at, as providers take the ends of a time range. */
export function unixOf(day: string): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000);
}

/** Fetches a request once: an answer saved by an earlier (killed) attempt of this run is reused. */
export async function fetchOnce(ctx: FetchContext, provider: ProviderId, key: string, get: () => Promise<unknown>): Promise<boolean> {
  if (ctx.raw.has(provider, key)) return false;
  ctx.raw.save(provider, key, await get());
  return true;
}
