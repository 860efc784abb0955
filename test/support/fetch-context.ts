/**
 * A connector's FetchContext for tests: a real ProviderHttp with short backoffs and a half-second
 * time limit (so fault tests run fast), the given raw store and settings, silent logs unless a
 * logger is given (tests read the retries' waits from it); the requests it skipped are kept in
 * `skipped`.
 */
import type { FetchContext, ProviderSettings, SkippedRequest } from "../../src/ingest/connector.ts";
import { ProviderHttp } from "../../src/ingest/http.ts";
import type { RawStore } from "../../src/ingest/raw-store.ts";
import type { ProviderId } from "../../src/ingest/records.ts";
import { type Logger, silentLogger } from "../../src/log.ts";

export function testFetchContext(
  provider: ProviderId,
  raw: RawStore,
  settings: ProviderSettings,
  options: { today: string; detailLimit: number; since?: (series: string) => string | undefined; progress?: (done: number, total: number) => void; log?: Logger },
): FetchContext & { http: ProviderHttp; skipped: SkippedRequest[] } {
  const skipped: SkippedRequest[] = [];
  return {
    skipped,
    skip: (request) => skipped.push(request),
    http: new ProviderHttp(provider, { log: options.log ?? silentLogger, retries: 3, backoffMs: 5, timeoutMs: 500, maxRetryAfterMs: 5000 }),
    raw,
    settings,
    log: silentLogger,
    today: options.today,
    detailLimit: options.detailLimit,
    since: options.since ?? (() => undefined),
    progress: options.progress ?? (() => {}),
  };
}
