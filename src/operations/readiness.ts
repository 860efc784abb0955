/**
 * @module operations/readiness
 * What the server says of itself (/healthz and /readyz), as schemas: /openapi.json documents them
 * (api/readiness.ts), and the web console's status page is typed from there. The parts come from the server (its phase and snapshot), the
 * graph store, the scan scheduler and the payment gate; each is checked against its part here when
 * TypeScript compiles /readyz's answer, and a test checks real answers against the schema, which
 * refuses a field it does not name.
 */
import { z } from "zod";
import { PAYMENT_MODES } from "../config/settings-payments.ts";
import { GRAPH_PHASES } from "../graph/graph-store.ts";

/** Where the server stands: starting, building the first dataset, loading a snapshot, ready, or failed (tried again). */
export const PHASES = ["starting", "building", "loading", "ready", "failed"] as const;
export type Phase = (typeof PHASES)[number];

export const healthSchema = z.strictObject({ status: z.literal("ok"), version: z.string(), uptime_s: z.number().int() });

const graphSchema = z.strictObject({
  phase: z.enum(GRAPH_PHASES),
  snapshot: z.string().optional().describe("the snapshot the graph holds"),
  quads: z.number().int().optional(),
  replicas: z.array(z.strictObject({ pid: z.number().int(), state: z.string(), load_ms: z.number().optional() })).describe("the graph processes (none for an external store)"),
  queued: z.number().int().describe("queries waiting for a graph process"),
  running: z.number().int().describe("queries a graph process (or the external store) is answering now"),
  timeouts: z.number().int().describe("queries that ran out of time since start"),
  error: z.string().optional(),
  endpoint: z.string().optional().describe("an external SPARQL store's endpoint"),
  store_snapshot: z.string().nullable().optional().describe("the snapshot an external store says it holds"),
});

const scanSchema = z.strictObject({
  scan_id: z.string(),
  trigger: z.string(),
  as_of: z.string(),
  status: z.string(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  signals: z.number().int().nullable(),
  per_type: z.record(z.string(), z.number().int()),
  errors: z.array(z.strictObject({ type: z.string(), message: z.string() })),
});

const scansSchema = z.strictObject({
  running: z.strictObject({ trigger: z.string(), since: z.string() }).nullable(),
  cron: z.string(),
  next_run: z.string().nullable(),
  recent: z.array(scanSchema).describe("the last scans, newest first"),
});

const ingestSchema = z.strictObject({
  cron: z.string(),
  next_run: z.string().nullable(),
  running: z.strictObject({ since: z.string() }).nullable(),
  last: z
    .strictObject({
      ingest_id: z.string(),
      started_at: z.string(),
      finished_at: z.string().nullable(),
      trigger: z.string(),
      status: z.string(),
      snapshot_id: z.string().nullable(),
      error: z.string().nullable(),
      host: z.string().nullable(),
    })
    .nullable(),
});

const snapshotSchema = z.strictObject({
  id: z.string(),
  created_at: z.string(),
  as_of: z.string(),
  synthetic: z.boolean(),
  notice: z.string().describe("what of the data is synthetic demo data, in words"),
  entity_counts: z.record(z.string(), z.number().int()),
  sources: z.array(z.strictObject({ id: z.string(), kind: z.string(), synthetic: z.boolean(), entities: z.number().int(), facts: z.number().int(), as_of: z.string() })),
});

/** What the server says of itself (Services.readiness); /readyz adds the payments. */
export const serverReadinessSchema = z.strictObject({
  status: z.enum(PHASES),
  version: z.string(),
  uptime_s: z.number().int(),
  data_dir: z.string(),
  graph: graphSchema,
  state_store: z.string(),
  scans: scansSchema.nullable(),
  ingest: ingestSchema.nullable(),
  state_error: z.string().optional().describe("the state store cannot be read"),
  error: z.string().optional().describe("why the last start failed (it is tried again)"),
  snapshot_rejected: z.strictObject({ id: z.string(), error: z.string(), at: z.string() }).optional(),
  snapshot: snapshotSchema.optional().describe("the live snapshot, once there is one"),
});

export type ServerReadiness = z.input<typeof serverReadinessSchema>;
/** The scan scheduler's part of /readyz (supervisor/scheduler.ts). */
export type ScansStatus = z.input<typeof scansSchema>;
/** The ingest scheduler's part of /readyz. */
export type IngestStatus = z.input<typeof ingestSchema>;

const paymentsSchema = z.strictObject({
  mode: z.enum(PAYMENT_MODES),
  note: z.string().optional(),
  networks: z.array(z.string()).optional(),
  facilitator: z.string().optional(),
  rpc: z.string().optional(),
  settler: z.string().optional(),
  solana_rpc: z.string().optional(),
  pay_to: z.string().optional(),
  pay_to_solana: z.string().optional(),
  sign_in_with_x: z.strictObject({ access_seconds: z.number() }).optional(),
  error: z.string().optional(),
  ledger_store: z.string(),
  ledger: z.union([z.record(z.string(), z.number().int()), z.strictObject({ error: z.string() })]).describe("payments by state, or why the ledger cannot be read"),
});

export const readinessSchema = serverReadinessSchema.extend({ payments: paymentsSchema });
