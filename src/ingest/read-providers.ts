/**
 * @module ingest/read-providers
 * Each provider in turn: its answers fetched (unless importing) into the raw store, then parsed
 * into claims and rows, with a report of what it gave, what it cost and which requests it went on
 * without. Nothing a provider does stops the others: a refused request is a `skipped` line, and a
 * connector that fails outright (a bug) is reported as one skipped line for the whole provider,
 * whose answers saved so far are still parsed.
 */
import type { SourceInfo } from "../model/world.ts";
import type { FetchContext, SkippedRequest } from "./connector.ts";
import { ProviderHttp } from "./http.ts";
import type { IngestOptions } from "./options.ts";
import { connector } from "./providers/index.ts";
import type { RawStore } from "./raw-store.ts";
import { type ProviderId, ProviderOutput } from "./records.ts";
import type { Cursors } from "./run-state.ts";
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

/** Fetches (unless importing) and parses each provider in turn. */
export async function readProviders(
  options: IngestOptions,
  providers: ProviderId[],
  raw: RawStore,
  cursors: Cursors,
  today: string,
): Promise<{ reports: ProviderReport[]; outputs: { output: ProviderOutput; source: SourceInfo }[] }> {
  const { source, log } = options;
  const reports: ProviderReport[] = [];
  const outputs: { output: ProviderOutput; source: SourceInfo }[] = [];

  for (const id of providers) {
    const c = connector(id);
    const fetchStarted = performance.now();
    const http = source.kind === "fetch" ? new ProviderHttp(id, { log, minIntervalMs: source.providers.get(id)!.minIntervalMs, ...source.http }) : undefined;
    const skipped: SkippedRequest[] = [];
    if (source.kind === "fetch") {
      const ctx: FetchContext = {
        http: http!,
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
        await c.fetch(ctx);
      } catch (error) {
        skipped.push({ request: "*", reason: `the ${id} connector failed: ${(error as Error).message}` });
        log.error({ provider: id, err: (error as Error).message }, "provider fetch failed; what it saved is still read, the other providers go on");
      }
    }
    const fetchMs = performance.now() - fetchStarted;
    const parseStarted = performance.now();
    const output = new ProviderOutput(id, log);
    c.parse(raw, output);
    options.onProgress?.({ provider: id, step: "parse", done: 1, total: 1 });
    const parseMs = performance.now() - parseStarted;
    const records = output.claims.length + output.rowCount;
    reports.push({
      id,
      records: output.claims.length,
      rows: output.rowCount,
      links: output.links.length,
      rejected: output.rejected.length,
      left_out: Object.fromEntries(output.leftOut),
      skipped,
      requests: http?.stats.requests ?? 0,
      retries: http?.stats.retries ?? 0,
      rate_limited: http?.stats.rateLimited ?? 0,
      fetch_ms: Math.round(fetchMs),
      parse_ms: Math.round(parseMs),
      records_per_second: Math.round(records / Math.max(0.001, (fetchMs + parseMs) / 1000)),
      as_of: source.kind === "fetch" ? isoSeconds() : `${output.latestDate ?? today}T00:00:00Z`,
      latest_day: output.latestDate ?? null,
    });
    outputs.push({ output, source: c.source });
    log.info({ provider: id, records: output.claims.length, rows: output.rowCount, rejected: output.rejected.length, ms: Math.round(fetchMs + parseMs) }, "provider read");
  }
  return { reports, outputs };
}
