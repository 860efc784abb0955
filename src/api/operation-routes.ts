/**
 * @module api/operation-routes
 * The routes of the operations table: one per operation (its input from the query string or the
 * JSON body, plus the path parameters). The SPARQL 1.1 Protocol at /sparql, which runs the sparql
 * operation with the standard request and result formats, is sparql-protocol.ts.
 */
import { CkgError, isCkgError } from "../errors.ts";
import { UnreadableInput } from "../operations/judge.ts";
import { toJsonSchema } from "../operations/json-schema.ts";
import { type AnyOperation, inQuery, pathParams } from "../operations/operation.ts";
import { readJsonObject } from "./body.ts";
import type { HttpOutcome } from "./outcome.ts";
import type { ResponseSet, Route } from "./routes.ts";

/** Runs an operation for a request (payment in, settlement out): its outcome rendered (api/outcome.ts). */
export type Run = (op: AnyOperation, raw: Record<string, unknown> | UnreadableInput, request: Request, set: ResponseSet) => Promise<HttpOutcome>;

export function operationRoutes(operations: readonly AnyOperation[], run: Run): Route[] {
  return operations.map((op): Route => {
    const queryTypes = inQuery(op) ? propertyTypes(op) : new Map<string, string>();
    const params = pathParams(op.path);
    // A POST with no fields of its own (rotating a secret: the id in the path, the secret in
    // Authorization) reads no body as the empty input, as `{}`; a POST with fields still needs a body.
    const emptyIsEmpty = !inQuery(op) && [...propertyTypes(op).keys()].every((name) => params.includes(name) || name === op.bearer);
    return {
      method: op.method,
      path: op.path,
      doc: { operation: op },
      async handle({ request, params: given, set }) {
        const raw = await readInput(async () => (inQuery(op) ? queryInput(request, queryTypes) : await readJsonObject(request, { emptyIsEmpty })));
        if (!(raw instanceof UnreadableInput)) {
          for (const name of params) raw[name] = given[name];
          const bearer = op.bearer && /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1];
          if (op.bearer && bearer && raw[op.bearer] === undefined) raw[op.bearer] = bearer;
        }
        const outcome = await run(op, raw, request, set);
        return outcome.answered ? outcome.answer : outcome.body;
      },
    };
  });
}

/**
 * The input of a request, or why it cannot be read, to be judged after the offer (an unpaid request
 * meets the 402 whatever it sent). A body over the 64 KiB limit is refused at once, 413, as
 * before: the limit is there so the server never reads (or keeps) more than that of a request,
 * and judging one would mean reading it; paid or not, it could never be answered.
 */
export async function readInput<T>(read: () => Promise<T>): Promise<T | UnreadableInput> {
  try {
    return await read();
  } catch (error) {
    if (isCkgError(error) && error.code !== "payload_too_large") return new UnreadableInput(error);
    throw error;
  }
}

/** JSON Schema type of each input property: query strings are converted to them before validation. */
function propertyTypes(op: AnyOperation): Map<string, string> {
  const schema = toJsonSchema(op.input, "input") as { properties?: Record<string, { type?: string }> };
  return new Map(Object.entries(schema.properties ?? {}).map(([name, p]) => [name, p.type ?? "string"]));
}

function queryInput(request: Request, types: Map<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const search = new URL(request.url).searchParams;
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    if (values.length > 1) {
      throw new CkgError("invalid_request", `Parameter ${name} is given ${values.length} times; give it once.`, { details: { field: name } });
    }
    out[name] = convert(values[0]!, types.get(name));
  }
  return out;
}

/** "72" -> 72 for numbers, "true" -> true for booleans; anything else stays a string for the schema to judge. */
function convert(value: string, type: string | undefined): unknown {
  if ((type === "number" || type === "integer") && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  if (type === "boolean") {
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
  }
  return value;
}
