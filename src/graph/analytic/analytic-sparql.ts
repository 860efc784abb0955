/**
 * @module graph/analytic/analytic-sparql
 * Analytic SPARQL on DuckDB for one snapshot: a SELECT that groups or aggregates over the whole
 * graph runs as SQL over the snapshot's graph tables, in its query database, where the graph
 * store would walk every quad (a predicate histogram over 4 M quads: 824 ms in Oxigraph, tens of
 * ms here). Everything else, and whatever the translator is unsure of, stays on the graph store.
 * The same snapshot's tables answer as its graph would: a pinned request never mixes two.
 */
import { LRUCache } from "lru-cache";
import type { Logger } from "../../log.ts";
import type { SnapshotManifest } from "../../store/manifest.ts";
import type { TimeseriesStore } from "../../timeseries/store.ts";
import type { SelectResult } from "../protocol.ts";
import { type GraphProfile, readGraphProfile } from "./graph-profile.ts";
import { type SelectQuery, type Translation, translate } from "./translate.ts";
import { Unsure } from "./unsure.ts";

/** Which engine answered a SPARQL query (the `engine` of its log line and of /metrics). */
export type SparqlEngine = "duckdb" | "oxigraph";

/** Words without which a query cannot be analytic: the rest skip the parse. */
const ANALYTIC_WORDS = /\b(GROUP\s+BY|COUNT|SUM|AVG|MIN|MAX)\b/i;

/** Plans kept per snapshot: a query asked again (a dashboard's, an agent's) skips the parse and the translation. */
const PLANS_KEPT = 1000;

export class AnalyticSparql {
  private profile: GraphProfile | undefined;
  /** Translations by query text (false: left to the graph store); the parse alone is 0.2-0.3 ms. */
  private readonly plans = new LRUCache<string, Translation | false>({ max: PLANS_KEPT });
  /** Settles once the graph tables are read (the profile, or the reason analytic SPARQL stays off). */
  readonly ready: Promise<void>;

  constructor(
    private readonly store: TimeseriesStore,
    manifest: SnapshotManifest,
    log: Logger,
  ) {
    const started = performance.now();
    this.ready = readGraphProfile(store, manifest).then(
      (profile) => {
        const ms = Math.round(performance.now() - started);
        if ("refused" in profile) log.info({ snapshot: manifest.id, reason: profile.refused, ms }, "analytic SPARQL stays on the graph store");
        else {
          this.profile = profile;
          log.info({ snapshot: manifest.id, ms }, "analytic SPARQL on DuckDB ready");
        }
      },
      (error: unknown) => log.warn({ snapshot: manifest.id, err: String(error) }, "analytic SPARQL stays on the graph store: the graph tables could not be read"),
    );
  }

  /**
   * The SQL translation of a query, or undefined when the graph store must answer it: not
   * analytic, not translatable, or the snapshot's tables not (yet) known to match its graph.
   * `parse` is the caller's SPARQL parser (with its prefixes and base).
   */
  plan(text: string, parse: () => unknown, maxRows: number): Translation | undefined {
    if (!this.profile || !ANALYTIC_WORDS.test(text)) return undefined;
    const key = `${maxRows} ${text}`;
    const known = this.plans.get(key);
    if (known !== undefined) return known === false ? undefined : known;
    let query: SelectQuery;
    try {
      query = parse() as SelectQuery;
    } catch {
      return undefined; // the graph store's path explains the error
    }
    try {
      const translation = translate(query, this.profile, maxRows);
      this.plans.set(key, translation);
      return translation;
    } catch (error) {
      if (!(error instanceof Unsure)) throw error;
      this.plans.set(key, false);
      return undefined;
    }
  }

  async run(translation: Translation, timeoutMs: number): Promise<SelectResult> {
    return translation.read(await this.store.ownQuery(translation.sql, { timeoutMs }));
  }
}

/** Queries answered by each engine since start, and their time: /metrics. */
export class SparqlEngineTally {
  readonly queries: Record<SparqlEngine, number> = { duckdb: 0, oxigraph: 0 };
  readonly seconds: Record<SparqlEngine, number> = { duckdb: 0, oxigraph: 0 };

  record(engine: SparqlEngine, seconds: number): void {
    this.queries[engine]++;
    this.seconds[engine] += seconds;
  }
}
