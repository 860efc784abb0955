/**
 * @module mcp/tools
 * The operations table as MCP tools, in the table's order: one tool per operation (the per-type
 * signal routes are one tool whose `signal_type` argument is the slug), input and output JSON Schema
 * from the operation's schemas, annotations from its declared effects (operations/effects), a
 * description for an agent with the cost (and, over the default cap of x402 clients, how to raise
 * it), structured content; and answers cut to fit an agent's context, saying so and how to get the rest.
 */
import type { Tool } from "@modelcontextprotocol/server";
import { type AnyOperation, type DescriptionSettings, describeOperation } from "../operations/operation.ts";
import { errorBodySchema } from "../errors.ts";
import { type Effects, describeEffects } from "../operations/effects.ts";
import { type JsonSchema, toJsonSchema } from "../operations/json-schema.ts";
import { capNote } from "../payments/client-cap.ts";

/** Characters of one tool answer (about 25K tokens): more would crowd an agent's context. */
const MAX_RESULT_CHARS = 100_000;

/** The tool of an operation on a server with these settings (its description quotes them). */
export function toolFor(op: AnyOperation, priceUsd: number, settings: DescriptionSettings): Tool {
  const input = toJsonSchema(op.input, "input") as Tool["inputSchema"];
  const cap = capNote(priceUsd);
  const cost =
    priceUsd > 0 ? `Costs ${priceUsd.toFixed(2)} USD per call, paid with x402 (USDC): an unpaid call returns the payment requirements.${cap ? ` Note: ${cap}.` : ""}` : "Free.";
  return {
    name: op.name,
    title: op.summary,
    description:
      `${describeOperation(op, settings)}\n\n${describeEffects(op.effects)} ${cost} ` +
      `Answers longer than ${MAX_RESULT_CHARS.toLocaleString("en-US")} characters are cut, with a note on how to get the rest.`,
    inputSchema: { ...input, type: "object" },
    outputSchema: outputSchemaOf(op),
    // Hints a client acts on (running read-only tools without asking): from the table's declaration, never assumed.
    annotations: { title: op.summary, ...hintsOf(op.effects) },
  };
}

/** MCP's four hints for an operation's effects, every one stated: a client's default for a missing hint may say otherwise. */
function hintsOf(effects: Effects): Required<Omit<NonNullable<Tool["annotations"]>, "title">> {
  const reads = effects.state === "reads";
  return {
    readOnlyHint: reads,
    // Meaningful only for a tool that writes; a reading tool neither destroys nor changes anything when repeated.
    destructiveHint: effects.state === "destroys",
    idempotentHint: reads || effects.idempotent,
    openWorldHint: effects.openWorld,
  };
}

/**
 * What a call's structuredContent may be: the operation's answer (plus `truncated` and `note` when
 * cut for an agent), or, in an error result, the documented error body or the x402 PaymentRequired
 * object. The official client checks every structuredContent it gets against the declared schema,
 * error results included, so the schema names all three.
 */
function outputSchemaOf(op: AnyOperation): NonNullable<Tool["outputSchema"]> {
  return { type: "object", anyOf: [fittedAnswer(toJsonSchema(op.output, "output")), ERROR_BODY, PAYMENT_REQUIRED] };
}

/** An answer schema that also allows the two fields fitForAgent adds to a cut answer. */
function fittedAnswer(answer: JsonSchema): JsonSchema {
  const cut = { truncated: { type: "boolean", description: "the answer was cut to fit an agent's context" }, note: { type: "string", description: "what was cut and how to get the rest" } };
  const widen = (schema: JsonSchema): JsonSchema => (schema.type === "object" && schema.properties ? { ...schema, properties: { ...(schema.properties as JsonSchema), ...cut } } : schema);
  for (const key of ["anyOf", "oneOf"] as const) if (Array.isArray(answer[key])) return { ...answer, [key]: (answer[key] as JsonSchema[]).map(widen) };
  return widen(answer);
}

const ERROR_BODY: JsonSchema = { ...toJsonSchema(errorBodySchema, "output"), description: "A tool error (isError): the documented error shape" };

/** x402 v2's PaymentRequired, returned as an error result by an unpaid call to a paid tool. */
const PAYMENT_REQUIRED: JsonSchema = {
  type: "object",
  description: "Payment required (isError): the x402 v2 PaymentRequired object; pay one of `accepts` and call again with _meta['x402/payment']",
  required: ["x402Version", "accepts"],
  properties: {
    x402Version: { type: "integer" },
    error: { type: "string" },
    resource: { type: "object", properties: { url: { type: "string" } } },
    accepts: {
      type: "array",
      items: {
        type: "object",
        required: ["scheme", "network", "asset", "amount", "payTo"],
        properties: { scheme: { type: "string" }, network: { type: "string" }, asset: { type: "string" }, amount: { type: "string" }, payTo: { type: "string" }, maxTimeoutSeconds: { type: "integer" } },
      },
    },
    extensions: { type: "object" },
  },
};

/**
 * Cuts an answer to MAX_RESULT_CHARS by shortening its longest list (rows, signals, results,
 * changes), and says so in `truncated` and `note`.
 */
export function fitForAgent(answer: unknown): unknown {
  const text = JSON.stringify(answer);
  if (text.length <= MAX_RESULT_CHARS || answer === null || typeof answer !== "object" || Array.isArray(answer)) return answer;
  const record = answer as Record<string, unknown>;
  const key = Object.keys(record)
    .filter((k) => Array.isArray(record[k]))
    .sort((a, b) => JSON.stringify(record[b]).length - JSON.stringify(record[a]).length)[0];
  if (!key) return answer;
  const list = record[key] as unknown[];
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (JSON.stringify({ ...record, [key]: list.slice(0, mid) }).length <= MAX_RESULT_CHARS - 400) lo = mid;
    else hi = mid - 1;
  }
  const kept = list.slice(0, lo);
  return {
    ...record,
    [key]: kept,
    ...("count" in record ? { count: kept.length } : {}),
    truncated: true,
    note:
      `Cut to fit an agent's context: ${kept.length} of ${list.length} ${key} shown. ` +
      "Ask for fewer (limit), page on (cursor, where offered), or narrow the query (filters, LIMIT/OFFSET in SQL or SPARQL).",
  };
}
