/**
 * @module operations/json-schema
 * An operation's zod schema as JSON Schema: for OpenAPI, for MCP tool input and output schemas, and
 * for converting query strings to the types a GET operation expects. Always in the portable
 * spelling (operations/portable-schema: no type arrays, no untyped schemas), so the tools and the
 * OpenAPI document are readable by clients with a single-type schema dialect.
 */
import { z } from "zod";
import { portableSchema } from "./portable-schema.ts";

export type JsonSchema = Record<string, unknown>;

export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return portableSchema(json);
}
