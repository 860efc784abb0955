/**
 * @module config/settings
 * The table of every setting: its name, schema, default and help text. Flags, `CKG_*` environment
 * variables, the optional config file, `--help` and docs/configuration.md all come from this one
 * table. A setting named `query_timeout_ms` is `--query-timeout-ms` on the command line and
 * `CKG_QUERY_TIMEOUT_MS` in the environment (docs/decisions/0018-configuration-names.md: flags
 * mirror env names).
 */
import { z } from "zod";
import { type Setting, type SettingValues, setting } from "./setting.ts";
import { BACKUP_SETTINGS } from "./settings-backup.ts";
import { PAYMENT_SETTINGS } from "./settings-payments.ts";
import { INGEST_SETTINGS } from "./settings-providers.ts";
import { PUSH_SETTINGS } from "./settings-push.ts";
import { SNAPSHOT_SIGNING_SETTINGS } from "./settings-snapshots.ts";

export type { Setting } from "./setting.ts";
export { envName, flagName } from "./setting.ts";

const port = z.number().int().min(0).max(65535);
/** A memory size as DuckDB reads one. */
const size = z.string().regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, "a size such as 2GB or 512MB");

/** `default` (small, fast first start), `full` (the published size) or a target entity count. */
export const scaleSchema = z.preprocess(
  (v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v),
  z.union([z.enum(["default", "full"]), z.number().int().min(1000).max(5_000_000)]),
);
export type Scale = z.infer<typeof scaleSchema>;

export const SETTINGS = {
  data_dir: setting("string", z.string().min(1), "./ckg-data", "the data directory; everything ckg keeps lives here"),
  host: setting("string", z.string().min(1), "127.0.0.1", "listen address (0.0.0.0 listens on every interface)"),
  port: setting("integer", port, 8402, "listen port (0 picks a free one)"),
  base_url: setting(
    "string",
    z.url().optional(),
    undefined,
    "public base URL used in OpenAPI and payment challenges (default: derived from host and port)",
  ),
  query_timeout_ms: setting(
    "integer",
    z.number().int().min(100).max(600_000),
    10_000,
    "time limit of one SPARQL or SQL query in milliseconds",
  ),
  sql_memory_limit: setting(
    "string",
    size,
    "2GB",
    "memory the time-series SQL engine may use for all queries together",
  ),
  duckdb_threads: setting("integer", z.number().int().min(1).max(256), 2, "threads each DuckDB instance may use: the SQL engine, scans, ingests, builds and backtests"),
  batch_memory_limit: setting(
    "string",
    size,
    "4GB",
    "memory the DuckDB of a scan, an ingest or a backtest may use (it spills the rest to disk)",
  ),
  scale: setting(
    "string",
    scaleSchema,
    "default",
    "dataset size for a fresh data directory: default, full, or a target entity count",
  ),
  seed: setting("integer", z.number().int().min(0).max(2 ** 31 - 1), 42, "seed of the synthetic demo generator"),
  rate_limit_per_minute: setting(
    "integer",
    z.number().int().min(0).max(10_000_000),
    6000,
    "requests per minute allowed to one client (bursts up to the same number); 0 turns the limit off",
  ),
  trust_proxy: setting(
    "boolean",
    z.boolean(),
    false,
    "take the client address from X-Forwarded-For (only behind a proxy you run)",
  ),
  graph_replicas: setting(
    "integer",
    z.number().int().min(1).max(8),
    1,
    "graph query processes; each holds a full copy of the graph in memory and answers queries in parallel",
  ),
  state_url: setting(
    "string",
    z.string().regex(/^postgres(ql)?:\/\//, "a postgres:// URL").optional(),
    undefined,
    "PostgreSQL holding the state that replicas of ckg share: the payment ledger (replay protection across them), signals with their moves, scans, ingests and the changes feed; unset: state.sqlite in the data directory",
    { secret: true },
  ),
  sparql_url: setting(
    "string",
    z.url().optional(),
    undefined,
    "query endpoint of an external SPARQL 1.1 store holding `ckg export`'s graph (Virtuoso, QLever, Oxigraph server, GraphDB, Fuseki); graph queries go there instead of to graph processes (user:password in the URL is sent as Basic auth)",
    { secret: true },
  ),
  sparql_analytic: setting(
    "boolean",
    z.boolean(),
    true,
    "answer analytic SPARQL (a SELECT that groups or counts over basic graph patterns) with DuckDB over the snapshot's graph tables; false keeps every query on the graph store",
  ),
  sparql_dataset: setting(
    "string",
    z.enum(["snapshot", "store"]),
    "snapshot",
    "what queries to the external SPARQL store see: `snapshot` (its named graphs alone, sent as default-graph-uri: answers as on the embedded store) or `store` (the store's own default graph: faster on Virtuoso, 17 vs 115 ms for a class count, but it may include the store's system graphs)",
  ),
  sparql_auth: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "Authorization header value sent to the external SPARQL store (Bearer ...), instead of credentials in its URL",
    { secret: true },
  ),
  ontology_ns: setting(
    "string",
    z.url().refine((v) => v.endsWith("#") || v.endsWith("/"), "must end with # or /"),
    "https://ckg.example/ontology#",
    "ontology namespace (the spec's schema namespace) used when a snapshot is built",
  ),
  embedder: setting(
    "string",
    z
      .string()
      .regex(/^(lsa|onnx:.+|openai:https?:\/\/.+)$/, "lsa, onnx:<model directory> or openai:<base url>"),
    "lsa",
    "how a new snapshot's search vectors are made: lsa (learned from the corpus, offline), onnx:<dir> (a local " +
      "sentence-embedding model: model.onnx + tokenizer.json) or openai:<base url> (an OpenAI-compatible embeddings API); " +
      "queries always use the embedder the live snapshot was indexed with",
  ),
  search_cache_entries: setting(
    "integer",
    z.number().int().min(0).max(1_000_000),
    10_000,
    "search answers kept per snapshot for repeated questions (agents ask the same thing again); 0 turns the cache off",
  ),
  embeddings_model: setting(
    "string",
    z.string().min(1),
    "text-embedding-3-small",
    "model name sent to an OpenAI-compatible embeddings API (embedder openai:...)",
  ),
  embeddings_api_key: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "API key sent as a bearer token to the embeddings API (embedder openai:...)",
    { secret: true },
  ),
  scan_cron: setting(
    "string",
    // Checked by croner's own parser, with the configuration (supervisor/cron.ts).
    z.string().min(1, "a cron pattern such as '0 6 * * *', or off"),
    "0 6 * * *",
    "when the daily signal scan runs (cron, UTC); off disables it",
  ),
  // Formerly scan_grace_ms, though it was always the ingests' grace as well.
  run_grace_ms: setting(
    "integer",
    z.number().int().min(0).max(3_600_000),
    20_000,
    "on SIGTERM, how long a running scan or ingest may take to finish before it is stopped (and recorded interrupted, to be redone at the next start)",
    { aliases: ["scan_grace_ms"] },
  ),
  scan_lease_ms: setting(
    "integer",
    z.number().int().min(3_000).max(3_600_000),
    60_000,
    "how long a running scan stays its replica's without being renewed (renewed every third of it); past that, a replica sharing the state store takes it over and scans the same day again",
  ),
  first_scan: setting(
    "boolean",
    z.boolean(),
    true,
    "scan for signals as soon as a data directory that was never scanned is ready (the day before and the day, so lasting signals qualify)",
  ),
  narrative_url: setting(
    "string",
    z.url().optional(),
    undefined,
    "base URL of an OpenAI-compatible chat API that writes signal narratives (POST <url>/chat/completions); unset: the offline writer",
  ),
  narrative_model: setting("string", z.string().min(1), "gpt-4o-mini", "model name sent to the narrative chat API"),
  narrative_api_key: setting(
    "string",
    z.string().min(1).optional(),
    undefined,
    "API key sent as a bearer token to the narrative chat API",
    { secret: true },
  ),
  // A healthy answer (a title and at most 120 words, ~160 tokens) takes a hosted model 2-5 s; 15 s is
  // three times the slow end, and the breaker's three time-outs in a row then cost 45 s, inside the budget.
  narrative_timeout_ms: setting(
    "integer",
    z.number().int().min(100).max(120_000),
    15_000,
    "time limit of one call to the narrative chat API; past it that narrative keeps the offline template",
  ),
  // 120 s holds about 40 narratives from a healthy endpoint, and bounds what a slow one costs a scan
  // (the first scan of a data directory keeps the signal routes waiting until it ends).
  narrative_budget_ms: setting(
    "integer",
    z.number().int().min(100).max(3_600_000),
    120_000,
    "time all of one scan's calls to the narrative chat API may take together; once spent (or after 3 failures in a row) the rest of the scan's narratives keep the offline template, saying why",
  ),
  snapshot_poll_ms: setting(
    "integer",
    z.number().int().min(100).max(600_000),
    2000,
    "how often the server checks for a newly published snapshot (ckg ingest, ckg build) and switches to it",
  ),
  ingest_cron: setting(
    "string",
    z.string().min(1, "a cron pattern such as '0 5 * * *', or off"),
    "off",
    "when the server runs `ckg ingest` (then a signal scan) from the data providers (cron, UTC); off disables it",
  ),
  ...INGEST_SETTINGS,
  ...BACKUP_SETTINGS,
  console_token: setting(
    "string",
    z.string().min(16, "at least 16 characters").optional(),
    undefined,
    "token an operator signs in to the web console with (at /); the console's requests are then not charged. Unset: no sign-in (the console pays like any client when payments are on)",
    { secret: true },
  ),
  ...PAYMENT_SETTINGS,
  ...PUSH_SETTINGS,
  ...SNAPSHOT_SIGNING_SETTINGS,
  log_level: setting(
    "string",
    z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]),
    "info",
    "least severe log level written",
  ),
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

export type Config = SettingValues<typeof SETTINGS>;
