/**
 * @module api/outcome
 * How HTTP answers, in one place: an operation's outcome (operations/invoke), and any failure. An
 * answer goes out with its payment's receipt in PAYMENT-RESPONSE; a payment required is 402 with
 * the x402 PaymentRequired object in the PAYMENT-REQUIRED header and as the JSON body; an error is
 * its status (api/error-status.ts), its headers and the error body, logged when it is the server's
 * own failure.
 */
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type { PaymentRequired } from "@x402/core/types";
import { type ErrorBody, isCkgError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Invoked } from "../operations/invoke.ts";
import { toHttpError } from "./error-status.ts";
import type { ResponseSet } from "./routes.ts";

/** An outcome over HTTP: the answer to send (or to write in a format of its own: /sparql), or a refusal already written into `set`, and its body. */
export type HttpOutcome = { answered: true; answer: unknown } | { answered: false; body: unknown };

/** Who to tell of a server failure: the log, with the request's id. */
export interface FailureLog {
  log: Logger;
  requestId: string | undefined;
}

export function httpOutcome(outcome: Invoked, set: ResponseSet, failures: FailureLog): HttpOutcome {
  switch (outcome.type) {
    case "answered":
      if (outcome.settlement) set.headers["payment-response"] = encodePaymentResponseHeader(outcome.settlement);
      return { answered: true, answer: outcome.answer };
    case "payment-required":
      return { answered: false, body: paymentRequired(set, outcome.paymentRequired) };
    case "refused":
      return { answered: false, body: failure(outcome.error, set, failures) };
  }
}

/**
 * The challenge's encodings, by the object: the challenge of an unpaid request is the same object
 * each time (payments/challenge.ts keeps it), and the 402 path is the hot one under load.
 */
const encoded = new WeakMap<PaymentRequired, { header: string; body: string }>();

/** 402: the x402 PaymentRequired object in the PAYMENT-REQUIRED header and as the JSON body. */
function paymentRequired(set: ResponseSet, paymentRequired: PaymentRequired): string {
  let sent = encoded.get(paymentRequired);
  if (!sent) {
    sent = { header: encodePaymentRequiredHeader(paymentRequired), body: JSON.stringify(paymentRequired) };
    encoded.set(paymentRequired, sent);
  }
  set.status = 402;
  set.headers["payment-required"] = sent.header;
  set.headers["cache-control"] = "no-store";
  set.headers["content-type"] = "application/json";
  return sent.body;
}

/** Any failure as its status, headers and error body; a bare 500 `internal` for what was not meant, logged with what happened. */
export function failure(error: unknown, set: ResponseSet, { log, requestId }: FailureLog): ErrorBody {
  const http = toHttpError(error);
  if (http.error.code === "internal") log.error({ req_id: requestId, err: describeError(error) }, "unhandled error");
  set.status = http.status;
  Object.assign(set.headers, http.headers);
  return http.body;
}

function describeError(error: unknown): Record<string, unknown> {
  if (isCkgError(error)) return { code: error.code, message: error.message, cause: String(error.cause) };
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { value: String(error) };
}
