/**
 * @module operations/json-schema
 * An operation's zod schema as JSON Schema: for OpenAPI, for MCP tool input schemas, and for
 * converting query strings to the types a GET operation expects.
 */
import { z } from "zod";

export type JsonSchema = Record<string, unknown>;

export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}
