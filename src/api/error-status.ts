/**
 * @module api/error-status
 * The one table from error code to HTTP status (docs/decisions/0005-error-body-and-status-codes.md),
 * and an error's HTTP response: status, headers and the error body. Only the HTTP layer knows
 * statuses; what a code means is src/errors.ts's.
 */
import { type CkgError, type ErrorBody, type ErrorCode, asCkgError } from "../errors.ts";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  invalid_sparql: 400,
  invalid_sql: 400,
  unauthorized: 401,
  read_only: 403,
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
  // A service ckg calls failed: a gateway's failure, not ours.
  upstream_unavailable: 502,
  // The facilitator did not say in time whether the payment settled: a gateway's timeout.
  settlement_unknown: 504,
  internal: 500,
};

export interface HttpError {
  status: number;
  headers: Record<string, string>;
  body: ErrorBody;
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
