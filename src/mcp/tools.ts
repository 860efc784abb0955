/**
 * @module mcp/tools
 * The operations table as MCP tools: one tool per operation (the per-type signal routes are one
 * tool whose `signal_type` argument is the slug), input JSON Schema from the operation's schema,
 * a description for an agent with the cost, structured content; and answers cut to fit an agent's
 * context, saying so and how to get the rest.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyOperation } from "../operations/operation.ts";
import { toJsonSchema } from "../operations/json-schema.ts";

/** Characters of one tool answer (about 25K tokens): more would crowd an agent's context. */
export const MAX_RESULT_CHARS = 100_000;

export function toolFor(op: AnyOperation, priceUsd: number): Tool {
  const input = toJsonSchema(op.input, "input") as Tool["inputSchema"];
  const cost = priceUsd > 0 ? `Costs ${priceUsd.toFixed(2)} USD per call, paid with x402 (USDC): an unpaid call returns the payment requirements.` : "Free.";
  return {
    name: op.name,
    title: op.summary,
    description: `${op.description}\n\n${cost} Answers longer than ${MAX_RESULT_CHARS.toLocaleString("en-US")} characters are cut, with a note on how to get the rest.`,
    inputSchema: { ...input, type: "object" },
    // Answers come as structuredContent, but no outputSchema is declared: the x402 MCP binding puts
    // the PaymentRequired object in an error result's structuredContent, which the official client
    // would check against a declared output schema and refuse. The shapes are in /openapi.json.
    annotations: { readOnlyHint: true, openWorldHint: false, title: op.summary },
  };
}

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
