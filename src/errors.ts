/**
 * @module errors
 * The one error type every layer throws on purpose, and the one table of its codes. A `CkgError`
 * carries a stable snake_case code and data. The table says what each code means whatever the
 * transport; the edges translate it, each in one table of its own: the HTTP status
 * (api/error-status.ts), the MCP tool result (mcp/call-result.ts), the CLI exit code. The error
 * body every transport sends is one zod schema (`errorBodySchema`), from which the OpenAPI
 * document, the MCP tools' output schemas and the web console's types are derived.
 */
import { z } from "zod";

/**
 * Whose failure an error is. `request`: the request as sent is refused (its input, its secret, its
 * method, its size, its rate) and sending it again changes nothing; paying would not change it
 * either, so a 402 says so beforehand (operations/judge.ts). `server`: the server cannot answer it
 * now (not ready, too slow, a service it calls failed, a bug); the same request may be answered later.
 */
export type ErrorFault = "request" | "server";

interface ErrorMeaning {
  fault: ErrorFault;
  /** What the code says, in a sentence: docs/api.md shows it beside the code. */
  meaning: string;
}

/** Every code the service can answer with, in the order the reference lists them. */
const ERROR_TABLE = {
  invalid_request: { fault: "request", meaning: "The input is malformed or breaks its schema: a body that is not JSON, a field missing, of the wrong type or out of range." },
  invalid_sparql: { fault: "request", meaning: "The SPARQL query does not parse; the message gives the position." },
  invalid_sql: { fault: "request", meaning: "The SQL query does not parse; the message gives the position." },
  unauthorized: { fault: "request", meaning: "A secret is missing or wrong: the console's token, a subscription's secret." },
  read_only: { fault: "request", meaning: "The query would change data or reach past the published data." },
  forbidden_origin: { fault: "request", meaning: "The MCP endpoint was called with a Host or Origin that is not this server's (DNS rebinding from a web page)." },
  entity_not_found: { fault: "request", meaning: "No entity has this name or URI; the details name the closest ones." },
  unknown_signal_type: { fault: "request", meaning: "No signal type has this slug." },
  not_found: { fault: "request", meaning: "Nothing is at this address: an unknown route, subscription or file." },
  method_not_allowed: { fault: "request", meaning: "The address exists, but not with this method; the details list the methods it takes." },
  payload_too_large: { fault: "request", meaning: "The request body is over the size limit." },
  too_many_entities: { fault: "request", meaning: "A batch has more entities than it takes, or none." },
  query_too_expensive: { fault: "request", meaning: "The query needs more memory than the limit allows; filter, aggregate or limit it." },
  rate_limited: { fault: "request", meaning: "This client sent more requests than its limit allows; retry after the time given." },
  not_ready: { fault: "server", meaning: "The server cannot answer yet (data loading, a store out of reach, shutting down); retry after the time given." },
  query_timeout: { fault: "server", meaning: "The query ran past its time limit." },
  upstream_unavailable: { fault: "server", meaning: "A service the server calls (an embeddings API, a graph store, the payment facilitator) failed; nothing was charged." },
  settlement_unknown: { fault: "server", meaning: "The payment's settlement outcome is not known yet: it is recorded and reconciled from the chain; do not pay again." },
  internal: { fault: "server", meaning: "The server failed to answer; the failure is logged." },
} as const satisfies Record<string, ErrorMeaning>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/** Every code the service can answer with. */
export const ERROR_CODES = Object.keys(ERROR_TABLE) as readonly ErrorCode[];

/** What a code means, whatever the transport. */
export function errorMeaning(code: ErrorCode): ErrorMeaning {
  return ERROR_TABLE[code];
}

/**
 * The error body (docs/decisions/0005-error-body-and-status-codes.md): `{"error": {code, message, details}}`,
 * the one description of it.
 */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]),
      message: z.string().describe("One sentence a person can act on."),
      details: z.record(z.string(), z.unknown()),
    }),
  })
  .describe("An error: its stable code, a message for people, and data for programs.");

export type ErrorBody = z.infer<typeof errorBodySchema>;

export interface CkgErrorOptions {
  details?: Record<string, unknown>;
  /** Seconds a client should wait before trying again (a rate limit, a server not ready). */
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class CkgError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: CkgErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "CkgError";
    this.code = code;
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  toJSON(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export function isCkgError(value: unknown): value is CkgError {
  return value instanceof CkgError;
}

/** Errors that are not ours become a bare `internal` error; the original is kept as `cause` for the log. */
export function asCkgError(value: unknown): CkgError {
  if (isCkgError(value)) return value;
  // The state database stayed locked past its wait (another process holds it): temporary, not our failure.
  if ((value as { code?: string } | null)?.code === "SQLITE_BUSY") {
    return new CkgError("not_ready", "The state database is busy (locked by another process); try again shortly.", { retryAfterSeconds: 5, cause: value });
  }
  // The shared state store (PostgreSQL, CKG_STATE_URL) cannot be reached: temporary, and not a fault of the request.
  if (/^ERR_POSTGRES_CONNECTION_(CLOSED|REFUSED)$|^ERR_POSTGRES_.*TIMEOUT/.test(String((value as { code?: string } | null)?.code))) {
    return new CkgError("not_ready", "The state store (PostgreSQL) cannot be reached; try again shortly.", { retryAfterSeconds: 5, cause: value });
  }
  return new CkgError("internal", "The server failed to answer this request; it has been logged.", {
    cause: value,
  });
}
