/**
 * The console's one way to the public API: same-origin fetch (the operator's session cookie rides
 * along), answers as JSON, failures as ApiError in the API's documented error shape.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** A paid route answered 402: the console needs the operator's sign-in (or an x402 client). */
  get paymentRequired(): boolean {
    return this.status === 402;
  }
}

export async function api<T>(method: "GET" | "POST" | "DELETE", path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const response = await fetch(path, {
    method,
    signal,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const json = text ? (JSON.parse(text) as unknown) : undefined;
  if (response.status === 402) throw new ApiError(402, "payment_required", "This route is paid (x402). Sign in as the operator, or call it with an x402 client.");
  if (!response.ok) {
    const error = (json as { error?: { code: string; message: string; details?: Record<string, unknown> } } | undefined)?.error;
    throw new ApiError(response.status, error?.code ?? "http_error", error?.message ?? `HTTP ${response.status}`, error?.details ?? {});
  }
  return json as T;
}

/**
 * Calls `load` once its inputs have stayed the same for `delayMs` (typing, picking filters),
 * cancelling the call before when they change; its answer or failure goes to `done`.
 */
export function debounced<T>(load: (signal: AbortSignal) => Promise<T>, done: (answer: T | null, error: unknown) => void, delayMs: number): () => void {
  const abort = new AbortController();
  const timer = setTimeout(() => {
    load(abort.signal).then(
      (answer) => done(answer, null),
      (error: Error) => error.name !== "AbortError" && done(null, error),
    );
  }, delayMs);
  return () => {
    clearTimeout(timer);
    abort.abort();
  };
}

/** The query string of a GET, leaving out empty values. */
export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

// The shapes the console reads (the API's own are in /openapi.json).

export interface SearchResult {
  uri: string;
  name: string;
  labels: string[];
  similarity: number;
}

export interface Sourced {
  value: unknown;
  source: string;
}

export interface Relationship {
  predicate: string;
  label: string;
  direction: "incoming" | "outgoing";
  uri: string;
  name: string;
  type: string;
  source: string;
}

export interface Explored {
  entity: { uri: string; id: string; name: string; type: string; labels: string[]; synthetic: boolean; attributes: Record<string, Sourced[]> };
  relationships: Record<string, { synthetic: boolean; count: number; truncated: boolean; items: Relationship[]; figures?: { metric: string; value: number; as_of: string; source: string; table: string }[] }>;
  sources: string[];
  other_matches: { uri: string; name: string; type: string }[];
}

export interface DataPoint {
  table: string;
  entity: string;
  date: string | null;
  column: string;
  value: number | string | null;
}

export interface Signal {
  signal_id: string;
  signal_type: string;
  synthetic: boolean;
  entities: string[];
  score: number;
  severity: "low" | "moderate" | "high";
  evidence: { summary?: string; metric?: string; value?: unknown; unit?: string; data_points?: DataPoint[]; [key: string]: unknown };
  created_at: string;
  seen_at: string;
  qualification: string;
  active: boolean;
}

export interface Narrative {
  signal_id: string;
  synthetic: boolean;
  title: string;
  text: string;
  actionability: string;
  qualification: string;
}

export interface EntityAnalysis {
  entity: { uri: string; name: string; type: string };
  summary: { synthetic: boolean; text: string; time_series_tables: string[]; signals: number };
  signals: Signal[];
  narratives: Narrative[];
  other_entities_named_alike: { uri: string; type: string }[];
}

export interface Column {
  name: string;
  type: string;
}

export interface SqlAnswer {
  columns: Column[];
  data: Record<string, unknown>[];
  count: number;
  truncated: boolean;
}

export interface SparqlAnswer {
  variables: string[];
  data: Record<string, unknown>[];
  count: number;
  truncated: boolean;
}

export interface Schema {
  prefixes: Record<string, string>;
  entity_types: string[];
  classes: { name: string }[];
  predicates: { name: string; kind: string }[];
  timeseries_tables: { name: string; synthetic: boolean; columns: { name: string; description: string }[] }[];
  graph_tables: { name: string; columns: { name: string; description: string }[] }[];
}

export interface SessionInfo {
  signed_in: boolean;
  sign_in: boolean;
  payments: string;
}
