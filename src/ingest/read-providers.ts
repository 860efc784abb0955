/**
 * @module ingest/read-providers
 * An ingest's first two stages (ingest/ingest.ts): `fetch`, each provider's answers into the raw
 * store (none when importing: the answers are saved already), then `parse`, each provider's saved
 * answers into claims and rows, with a report of what it gave, what it cost and which requests it
 * went on without. Nothing a provider does stops the others: a refused request is a `skipped`
 * line, and a connector that fails outright (a bug) is reported as one skipped line for the whole
 * provider, whose answers saved so far are still parsed. Only a run that got nothing at all from
 * any provider stops here.
 */
import type { SourceInfo } from "../model/world.ts";
import type { FetchContext, SkippedRequest } from "./connector.ts";
import { ProviderHttp } from "./http.ts";
import { type IngestOptions, type IngestRun, type IngestSource, IngestError } from "./options.ts";
import { connector } from "./providers/index.ts";
import { RawStore } from "./raw-store.ts";
import { type ProviderId, ProviderOutput } from "./records.ts";
import { type Cursors, prepareRun, readCursors } from "./run-state.ts";
import { addDays, isoSeconds } from "../time.ts";

export interface ProviderReport {
  id: ProviderId;
  records: number;
  rows: number;
  links: number;
  rejected: number;
  /** Well-formed records left out or left unlinked, by reason (test networks, reused chain ids, missing companion answers). */
  left_out: Record<string, number>;
  /** Requests the run went on without (refused, timed out, unreadable, or on a paid plan with no key), each with its reason. */
  skipped: SkippedRequest[];
  requests: number;
  retries: number;
  rate_limited: number;
  fetch_ms: number;
  parse_ms: number;
  /** Entity records, series rows and links per second, fetch and parse together. */
  records_per_second: number;
  as_of: string;
  latest_day: string | null;
}

/** What fetching one provider cost, and what it went on without. */
interface Fetched {
  id: ProviderId;
  skipped: SkippedRequest[];
  requests: number;
  retries: number;
  rateLimited: number;
  ms: number;
  /** When its answers were read (an import's come from its rows' latest day instead). */
  readAt: string;
}

export interface ProviderRead {
  output: ProviderOutput;
  source: SourceInfo;
}

/** Stage `fetch`: each provider's answers saved into the run's raw store, skipping those a killed run of the day saved. */
export async function fetchProviders({ options, today }: IngestRun): Promise<{ raw: RawStore; cursors: Cursors; fetched: Fetched[] }> {
  const { dir, source, log } = options;
  const providers = source.kind === "fetch" ? [...source.providers.keys()] : source.providers;
  const raw = source.kind === "fetch" ? new RawStore(prepareRun(dir, today, providers, log)) : new RawStore(source.from);
  const cursors = readCursors(dir);
  const fetched: Fetched[] = [];
  for (const id of providers) {
    const started = performance.now();
    const http = source.kind === "fetch" ? await fetchOne(options, source, id, { raw, cursors, today }) : undefined;
    fetched.push({ id, skipped: [], requests: 0, retries: 0, rateLimited: 0, ...http, ms: performance.now() - started, readAt: isoSeconds() });
  }
  return { raw, cursors, fetched };
}

/** One provider's fetch: what it skipped and what its requests cost. */
async function fetchOne(
  options: IngestOptions,
  source: Extract<IngestSource, { kind: "fetch" }>,
  id: ProviderId,
  { raw, cursors, today }: { raw: RawStore; cursors: Cursors; today: string },
): Promise<Omit<Fetched, "id" | "ms" | "readAt">> {
  const { log } = options;
  const http = new ProviderHttp(id, { log, minIntervalMs: source.providers.get(id)!.minIntervalMs, ...source.http });
  const skipped: SkippedRequest[] = [];
  const ctx: FetchContext = {
    http,
    raw,
    settings: source.providers.get(id)!.settings,
    log: log.child({ provider: id }),
    today,
    detailLimit: source.detailLimit,
    // The last stored day is asked again: it may have been taken mid-day (this run's rows win).
    since: (k) => {
      const cursor = cursors[id]?.[k];
      return cursor && addDays(cursor, -1);
    },
    progress: (done, total) => options.onProgress?.({ provider: id, step: "fetch", done, total }),
    skip: (request) => {
      skipped.push(request);
      // Each refusal once in the log, with its reason (a run against a provider that is down says so per request).
      log.warn({ provider: id, request: request.request, status: request.status, reason: request.reason }, "request skipped; the run goes on without it");
    },
  };
  try {
    await connector(id).fetch(ctx);
  } catch (error) {
    skipped.push({ request: "*", reason: `the ${id} connector failed: ${(error as Error).message}` });
    log.error({ provider: id, err: (error as Error).message }, "provider fetch failed; what it saved is still read, the other providers go on");
  }
  return { skipped, requests: http.stats.requests, retries: http.stats.retries, rateLimited: http.stats.rateLimited };
}

/** Stage `parse`: each provider's saved answers into claims and rows, and its report. IngestError when no provider gave anything. */
export function parseProviders({ options, today, raw, fetched }: IngestRun & { raw: RawStore; fetched: Fetched[] }): { reports: ProviderReport[]; outputs: ProviderRead[] } {
  const { source, log } = options;
  const reports: ProviderReport[] = [];
  const outputs: ProviderRead[] = [];
  for (const f of fetched) {
    const c = connector(f.id);
    const parseStarted = performance.now();
    const output = new ProviderOutput(f.id, log);
    c.parse(raw, output);
    options.onProgress?.({ provider: f.id, step: "parse", done: 1, total: 1 });
    const parseMs = performance.now() - parseStarted;
    const records = output.claims.length + output.rowCount;
    reports.push({
      id: f.id,
      records: output.claims.length,
      rows: output.rowCount,
      links: output.links.length,
      rejected: output.rejected.length,
      left_out: Object.fromEntries(output.leftOut),
      skipped: f.skipped,
      requests: f.requests,
      retries: f.retries,
      rate_limited: f.rateLimited,
      fetch_ms: Math.round(f.ms),
      parse_ms: Math.round(parseMs),
      records_per_second: Math.round(records / Math.max(0.001, (f.ms + parseMs) / 1000)),
      as_of: source.kind === "fetch" ? f.readAt : `${output.latestDate ?? today}T00:00:00Z`,
      latest_day: output.latestDate ?? null,
    });
    outputs.push({ output, source: c.source });
    log.info({ provider: f.id, records: output.claims.length, rows: output.rowCount, rejected: output.rejected.length, ms: Math.round(f.ms + parseMs) }, "provider read");
  }
  if (reports.every((r) => r.records === 0 && r.rows === 0 && r.links === 0)) {
    const why = reports.flatMap((r) => r.skipped.slice(0, 3).map((s) => `${r.id} ${s.request}: ${s.reason}`));
    throw new IngestError(`no provider gave anything to publish${why.length > 0 ? `:\n${why.join("\n")}` : ""}`);
  }
  return { reports, outputs };
}
