/**
 * @module mcp/call-result
 * How MCP answers a tool call, in one place, as the x402 MCP transport specifies: an answer is the
 * tool's result (structured content, and its payment's receipt in `_meta["x402/payment-response"]`);
 * a payment required is an error result whose structured content is the x402 PaymentRequired
 * object; an error is an error result with the error body, for an agent to read as text and a
 * program as structured content. Every error code is answered the same way: MCP has no statuses.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ErrorBody } from "../errors.ts";
import type { Invoked } from "../operations/invoke.ts";
import { fitForAgent } from "./tools.ts";

export const PAYMENT_META = "x402/payment";
const PAYMENT_RESPONSE_META = "x402/payment-response";

/** The result of a call: `project` fits an answer to the tool's output schema (the SDK's projectCallToolResult). */
export function callResult(outcome: Invoked, project: (result: CallToolResult) => CallToolResult): CallToolResult {
  switch (outcome.type) {
    case "answered": {
      const fitted = fitForAgent(outcome.answer) as Record<string, unknown>;
      return project({
        content: [{ type: "text", text: JSON.stringify(fitted) }],
        structuredContent: fitted,
        ...(outcome.settlement ? { _meta: { [PAYMENT_RESPONSE_META]: outcome.settlement } } : {}),
      });
    }
    case "payment-required": {
      const text = JSON.stringify(outcome.paymentRequired);
      return { isError: true, structuredContent: outcome.paymentRequired as unknown as Record<string, unknown>, content: [{ type: "text", text }] };
    }
    case "refused":
      return errorResult(outcome.error.toJSON());
  }
}

/** A tool error in the documented error shape, as text an agent reads and as structured content. */
function errorResult(body: ErrorBody): CallToolResult {
  return { isError: true, content: [{ type: "text", text: `${body.error.code}: ${body.error.message}\n${JSON.stringify(body)}` }], structuredContent: body };
}
