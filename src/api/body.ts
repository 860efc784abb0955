/**
 * @module api/body
 * Reading a JSON request body with the 64 KiB limit of docs/decisions/0007-limits.md. The limit
 * holds whether or not the client sends Content-Length: the stream is cut as soon as it passes the
 * limit.
 */
import { CkgError } from "../errors.ts";

export const MAX_BODY_BYTES = 64 * 1024;

/** `empty`: what an empty body stands for; absent, an empty body is refused (400). */
async function readJsonBody(request: Request, limit = MAX_BODY_BYTES, empty?: unknown): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > limit) throw tooLarge(limit, declared);
  const text = await readText(request, limit);
  if (text.trim() === "") {
    if (empty !== undefined) return empty;
    throw new CkgError("invalid_request", "The request body is empty; send a JSON object.", { details: { body: "empty" } });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    throw new CkgError("invalid_request", `The request body is not valid JSON: ${message}`, { details: { body: "malformed_json" } });
  }
}

/**
 * A JSON body that must be an object (an operation's input, the console's sign-in). `emptyIsEmpty`:
 * no body at all is the empty object, for a POST whose input has no fields of its own (all in the
 * path or the Authorization header), as `{}` would be.
 */
export async function readJsonObject(request: Request, options: { emptyIsEmpty?: boolean } = {}): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request, MAX_BODY_BYTES, options.emptyIsEmpty ? {} : undefined);
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new CkgError("invalid_request", "The request body must be a JSON object.", { details: { body: Array.isArray(body) ? "array" : typeof body } });
  }
  return body as Record<string, unknown>;
}

/**
 * A text body (a SPARQL query, a form) with the same limit. `strict`: bytes that are not UTF-8 are
 * refused (400) instead of read as U+FFFD, for a protocol that requires UTF-8 (SPARQL's).
 */
export async function readTextBody(request: Request, limit = MAX_BODY_BYTES, options: { strict?: boolean } = {}): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > limit) throw tooLarge(limit, declared);
  return readText(request, limit, options.strict === true);
}

async function readText(request: Request, limit: number, strict = false): Promise<string> {
  if (!request.body) return "";
  const decode = (bytes: Uint8Array): string => {
    try {
      return new TextDecoder("utf-8", { fatal: strict }).decode(bytes);
    } catch {
      throw new CkgError("invalid_request", "The request body is not UTF-8 text.", { details: { body: "not_utf8" } });
    }
  };
  // A declared length is enforced by the HTTP parser: the body can be read whole (cheaper than a stream).
  if (request.headers.has("content-length")) return strict ? decode(new Uint8Array(await request.arrayBuffer())) : request.text();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit, size);
    }
    chunks.push(value);
  }
  return decode(Buffer.concat(chunks));
}

function tooLarge(limit: number, size: number): CkgError {
  return new CkgError("payload_too_large", `The request body is larger than ${limit / 1024} KiB.`, {
    details: { limit_bytes: limit, received_bytes_at_least: size },
  });
}
