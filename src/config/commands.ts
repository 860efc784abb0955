/**
 * @module config/commands
 * The settings each command reads, in one place: the command's --help lists them (cli/), and a
 * server that runs the command as a child process (the first build, scans, ingests) forwards exactly
 * these from its own configuration (supervisor/spawn.ts), so a child sees what a person would have set.
 */
import { PROVIDER_SETTINGS } from "./providers/index.ts";
import type { SettingName } from "./settings.ts";

const EMBEDDER = ["embedder", "embeddings_model", "embeddings_api_key"] as const;
/** What a base world is built with: build, and ingest or import into an empty data directory. */
/** What any command that runs DuckDB reads: its threads and the memory of batch work. */
const DUCKDB = ["duckdb_threads", "batch_memory_limit"] as const;
const WORLD = ["data_dir", "log_level", "scale", "seed", "ontology_ns", ...DUCKDB, ...EMBEDDER, "snapshot_signing_key"] as const;

/** What an ingest reads: the base world's settings, which providers and how much, and every provider's own (config/providers). */
const INGEST = [...WORLD, "ingest_providers", "ingest_detail_limit", ...(Object.keys(PROVIDER_SETTINGS) as (keyof typeof PROVIDER_SETTINGS)[])] as const;

export const COMMAND_SETTINGS = {
  build: WORLD,
  ingest: [...INGEST, "state_url"],
  import: [...WORLD, "state_url"],
  scan: ["data_dir", "log_level", "state_url", ...DUCKDB, "scan_lease_ms", "narrative_url", "narrative_model", "narrative_api_key", "narrative_timeout_ms", "narrative_budget_ms"],
  mcp: ["data_dir", "log_level", "state_url", "query_timeout_ms", "sql_memory_limit", "scale", "seed", "graph_replicas", "sparql_url", "sparql_dataset", "sparql_auth", "ontology_ns", "push_poll_ms", ...DUCKDB, ...EMBEDDER, "snapshot_trusted_keys"],
  export: ["data_dir"],
  // A backup's --verify opens the restored copy as the server would (queries only).
  backup: ["data_dir", "log_level", "state_url", "query_timeout_ms", "sql_memory_limit", "graph_replicas", "ontology_ns", ...DUCKDB, ...EMBEDDER],
  restore: ["data_dir", "log_level", "state_url", "query_timeout_ms", "sql_memory_limit", "graph_replicas", "ontology_ns", ...DUCKDB, ...EMBEDDER],
  sparql: ["data_dir", "log_level"],
  stats: ["data_dir", "log_level", ...DUCKDB],
  backtest: ["data_dir", "log_level", ...DUCKDB],
  snapshot: ["data_dir", "log_level", "snapshot_trusted_keys", "snapshot_signing_key"],
  keys: [],
  "__graph-worker": [],
} as const satisfies Record<string, readonly SettingName[]>;

export type CommandName = keyof typeof COMMAND_SETTINGS;
