/**
 * @module errors
 * The one error type every layer throws on purpose. A `CkgError` carries a stable snake_case code
 * and data; the edges translate it: HTTP status (operations/error-status.ts), MCP tool error, CLI exit code.
 * The domain never names an HTTP status.
 */

/** Every code the service can answer with. Keep in step with operations/error-status.ts (checked by a test). */
export const ERROR_CODES = [
  "invalid_request",
  "invalid_sparql",
  "invalid_sql",
  "unauthorized",
  "read_only",
  "forbidden_origin",
  "entity_not_found",
  "unknown_signal_type",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "too_many_entities",
  "query_too_expensive",
  "rate_limited",
  "not_ready",
  "query_timeout",
  "upstream_unavailable",
  "settlement_unknown",
  "internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface CkgErrorOptions {
  details?: Record<string, unknown>;
  /** Seconds a client should wait before trying again (429, 503). */
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

/** The documented error body (docs/decisions/0005-error-body-and-status-codes.md): `{"error": {code, message, details}}`. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: Record<string, unknown> };
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
