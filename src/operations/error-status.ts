/**
 * @module operations/error-status
 * The one table from error code to HTTP status
 * (docs/decisions/0005-error-body-and-status-codes.md), and the error response itself.
 */
import { type CkgError, type ErrorCode, asCkgError } from "../errors.ts";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_sparql: 400,
  invalid_sql: 400,
  // The web console's sign-in with a wrong token.
  unauthorized: 401,
  read_only: 403,
  // /mcp called with a Host or Origin that is not this server's (DNS rebinding from a web page).
  forbidden_origin: 403,
  entity_not_found: 404,
  unknown_signal_type: 404,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  too_many_entities: 422,
  query_too_expensive: 422,
  rate_limited: 429,
  not_ready: 503,
  query_timeout: 504,
  // A service ckg was configured to call (an embeddings API) failed; the request is not charged.
  upstream_unavailable: 502,
  // A payment was settled or not: the facilitator did not say in time. Recorded and reconciled.
  settlement_unknown: 504,
  internal: 500,
};

export interface HttpError {
  status: number;
  headers: Record<string, string>;
  body: ReturnType<CkgError["toJSON"]>;
  error: CkgError;
}

export function toHttpError(value: unknown): HttpError {
  const error = asCkgError(value);
  const headers: Record<string, string> = {};
  if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(Math.max(1, Math.ceil(error.retryAfterSeconds)));
  // A 405 names the methods the path has (RFC 9110: Allow is required with 405).
  if (error.code === "method_not_allowed" && Array.isArray(error.details.allowed)) headers.allow = error.details.allowed.join(", ");
  return { status: HTTP_STATUS[error.code], headers, body: error.toJSON(), error };
}
