/**
 * @module ingest/connector
 * The contract of a provider connector, and `defineConnector`, which makes one from the provider's
 * definition (config/providers/: its id and settings) and what it does: how its settings become
 * hosts, keys and pace (`configure`), what it asks (`fetch`) and how its answers read (`parse`).
 * `fetch` downloads (only what is missing: saved answers are
 * kept, histories start after the last stored day) and saves every answer in the raw store;
 * `parse` reads the saved answers and never the network, so an offline import and an online ingest
 * parse alike. Malformed records are rejected with a reason, never thrown.
 *
 * Every request stands alone (`ask`): a refusal (401, 402, 403, 404, 429 past its retries, 5xx,
 * a time-out, an unreadable answer) is recorded as a skipped request with its reason and the run
 * goes on with the rest; the ingest report lists them. A request for a paid tier with no key
 * (`skipPaid`) is skipped the same way, said once in the log.
 *
 * The kit every connector parses with: `zodIssue` (a rejection's reason), `parseEach` (a list's
 * records through a schema, the malformed ones rejected), `dayOf` and `unixOf` (provider times).
 */
import type { z } from "zod";
import type { Config } from "../config/config.ts";
import type { ProviderDefinition } from "../config/provider.ts";
import type { Setting, SettingValues } from "../config/setting.ts";
import type { SourceInfo } from "../model/world.ts";
import type { Logger } from "../log.ts";
import { ProviderError, type ProviderHttp } from "./http.ts";
import type { RawStore } from "./raw-store.ts";
import type { ProviderId, ProviderOutput } from "./records.ts";

export interface ProviderSettings {
  /** Base URLs by name (a provider may have several hosts: DefiLlama api, yields, stablecoins). */
  urls: Record<string, string>;
  apiKey?: string;
  /** Limits of the provider's own (how many coin records, how many tokens' holders), by name. */
  limits?: Record<string, number>;
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
  /** Records a request that was refused or could not be made (the report's `skipped`). */
  skip(request: SkippedRequest): void;
}

/** A request the run went on without: what was asked, and why it has no answer. */
export interface SkippedRequest {
  /** The raw-store key of the answer it would have saved (`protocol/aave-v3`, `markets/2024-07-01/1`). */
  request: string;
  /** The URL asked, keys hidden; absent for a request never sent (a paid tier without a key). */
  url?: string;
  /** The provider's HTTP status, when it answered. */
  status?: number;
  reason: string;
}

/** How a provider is reached: its settings, and the least time between two requests to it (free-tier rate limits). */
export interface ProviderConfig {
  settings: ProviderSettings;
  minIntervalMs: number;
}

/** One provider: its id and source, its settings from the configuration, what it asks and how its answers read. */
export interface Connector<Id extends ProviderId = ProviderId> {
  id: Id;
  source: SourceInfo;
  configure(config: Config): ProviderConfig;
  fetch(ctx: FetchContext): Promise<void>;
  parse(raw: RawStore, out: ProviderOutput): void;
}

/** What a connector adds to its provider's definition. `configure` sees the provider's own settings only. */
export interface ConnectorBehaviour<S extends Record<string, Setting>> {
  /** The source its facts are attributed to (its id is the provider's; every provider is real data). */
  source: Omit<SourceInfo, "id" | "kind" | "synthetic">;
  configure(settings: SettingValues<S>): ProviderConfig;
  fetch(ctx: FetchContext): Promise<void>;
  parse(raw: RawStore, out: ProviderOutput): void;
}

export function defineConnector<Id extends ProviderId, S extends Record<string, Setting>>(definition: ProviderDefinition<Id, S>, behaviour: ConnectorBehaviour<S>): Connector<Id> {
  return {
    ...behaviour,
    id: definition.id,
    source: { id: definition.id, kind: "provider", synthetic: false, ...behaviour.source },
    // A provider's settings are part of the configuration (config/settings.ts takes in every provider's), so the whole configuration holds them.
    configure: (config) => behaviour.configure(config as unknown as SettingValues<S>),
  };
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

/** What became of a request: saved now, kept from an earlier attempt, absent at the provider, or skipped. */
export type Asked = "saved" | "kept" | "absent" | "skipped";

/**
 * Asks for an answer once and saves it under `key` (an answer saved by an earlier, killed attempt
 * of this run is kept and not asked again). A provider's refusal never throws: it is recorded as
 * skipped with its reason, or, for the statuses in `absentOn` (a delisted protocol's 404), taken
 * as "the provider has no such answer" and left unsaved. Anything else thrown (a bug) propagates.
 */
export async function ask(ctx: FetchContext, provider: ProviderId, key: string, get: () => Promise<unknown>, options: { absentOn?: number[] } = {}): Promise<Asked> {
  if (ctx.raw.has(provider, key)) return "kept";
  try {
    ctx.raw.save(provider, key, await get());
    return "saved";
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.status !== undefined && options.absentOn?.includes(error.status)) {
      ctx.log.debug({ request: key, status: error.status }, "the provider has no such answer");
      return "absent";
    }
    ctx.skip({ request: key, url: error.url, status: error.status, reason: error.message });
    return "skipped";
  }
}

/** True when the answer is in the raw store after asking (saved now or before). */
export const answered = (asked: Asked): boolean => asked === "saved" || asked === "kept";

/** A request only a paid plan serves, asked without a key: skipped, and said once per kind in the log. */
export function skipPaid(ctx: FetchContext, key: string, plan: string, setting: string): void {
  ctx.skip({ request: key, reason: `${plan} only: set ${setting} to fetch it` });
}
