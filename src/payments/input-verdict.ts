/**
 * @module payments/input-verdict
 * What a 402 says of the request's input, so no one pays to learn it is wrong: the `ckg/input`
 * extension of every challenge, `{valid: true}`, or `{valid: false, error}` with the refusal a
 * paid request would get (the documented error shape: code, message, details). Shaped as the x402
 * v2 spec asks of an extension (`info` and the JSON Schema of `info`); clients echo it back in
 * their payment, where it is ignored (the server judges the input of the request it is sent with).
 */
import type { ErrorBody } from "../errors.ts";

/** The transport's judgement of the request's input (operations/judge.ts makes it). */
export type InputVerdict = { valid: true } | { valid: false; error: ErrorBody["error"] };

export const INPUT_EXTENSION = "ckg/input";

export const VALID_INPUT: InputVerdict = { valid: true };

/**
 * The most of a refusal a 402 carries (its JSON, in characters), twice over in the header: the
 * PAYMENT-REQUIRED header already holds the bazaar extension (12.5 KB for the largest route), and
 * Node's clients refuse more than 16 KiB of headers. A refusal can echo the input (unknown field
 * names), which may be 64 KiB; past the limit its details are left out and its message cut.
 */
const MAX_ERROR_CHARS = 1024;
const MAX_MESSAGE_CHARS = 300;

/** The verdict on an input that would be refused with `error` (ckg's error body), bounded for a header. */
export function refusedInput(error: ErrorBody["error"]): InputVerdict {
  if (JSON.stringify(error).length <= MAX_ERROR_CHARS) return { valid: false, error };
  const message = error.message.length > MAX_MESSAGE_CHARS ? `${error.message.slice(0, MAX_MESSAGE_CHARS)}…` : error.message;
  return { valid: false, error: { code: error.code, message, details: { truncated: "the refusal is longer than a 402 carries; the paid request's refusal has it whole" } } };
}

/**
 * The JSON Schema of `info`, in every challenge. Its `error` is the error body's (src/errors.ts)
 * loosely: the code as a string, not the list of codes, which would add half a kilobyte to every
 * PAYMENT-REQUIRED header.
 */
const VERDICT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    valid: { type: "boolean", description: "Whether a paid request with this input would be answered; false: it would be refused (and not charged) with `error`." },
    error: {
      type: "object",
      description: "The refusal a paid request with this input would get, in ckg's error shape.",
      properties: { code: { type: "string" }, message: { type: "string" }, details: { type: "object" } },
      required: ["code", "message", "details"],
    },
  },
  required: ["valid"],
} as const;

/** The extension entry of a challenge. */
export function inputExtension(verdict: InputVerdict): Record<string, unknown> {
  return { [INPUT_EXTENSION]: { info: verdict, schema: VERDICT_SCHEMA } };
}

/** A challenge's `error`: its reason, and for an input that would be refused, that paying will not change it. */
export function reasonWith(reason: string, verdict: InputVerdict): string {
  if (verdict.valid) return reason;
  return `${reason}; but this input would be refused, paid or not (${verdict.error.code}: ${verdict.error.message}), see extensions["${INPUT_EXTENSION}"]`;
}

/** What the verdict adds to a key of kept challenges. */
export function verdictKey(verdict: InputVerdict): string {
  return verdict.valid ? "valid" : JSON.stringify(verdict.error);
}
