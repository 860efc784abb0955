/**
 * @module operations/portable-schema
 * JSON Schema in a spelling that clients with a single-`type` schema dialect can read. zod writes
 * two things such clients reject or silently drop: `type` arrays (`["string", "null"]` for a
 * nullable string), which a client mapping tools onto a single-`type` dialect (Gemini's function
 * declarations, an OpenAPI subset) cannot express; and schemas with no validation keyword at all
 * (`{}` for z.unknown(), `additionalProperties: {}` for a record of unknowns), which such a dialect
 * has no type for. The MCP Inspector's `--strict` tools/list check warns on both. This pass
 * rewrites them to the same contract in a portable form: a type array becomes `anyOf` branches of
 * one type each, and an untyped schema becomes `true` where JSON Schema takes a boolean
 * (additionalProperties) or an `anyOf` of the six JSON types elsewhere. Every rewrite accepts
 * exactly the values it replaces (test/operations/portable-schema.test.ts).
 */
export type Schema = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const ONE = ["items", "contains", "not", "propertyNames", "if", "then", "else", "additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems", "contentSchema"];
/** Keywords whose value is a list of subschemas. */
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to subschemas. */
const MAP = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"];
/** Where `true` is legal and means "anything": the plain spelling of an untyped schema there. */
const BOOLEAN_VALUED = new Set(["additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems"]);

/** JSON Schema's assertion and applicator keywords (`if` counts only with `then` or `else`): a schema with none of them accepts any value. */
const VALIDATION = new Set([
  ...["type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "format"],
  ...["contentMediaType", "contentEncoding", "contentSchema", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties"],
  ...["required", "dependentRequired", "allOf", "anyOf", "oneOf", "not", "items", "prefixItems", "contains", "additionalItems", "unevaluatedItems"],
  ...["properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "propertyNames", "dependentSchemas", "dependencies"],
  ...["$ref", "$dynamicRef", "$recursiveRef"],
]);

/** Keywords that constrain only values of one type: they move into that type's branch when a type array is split. */
const NUMBER = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
const OF_TYPE: Record<string, string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema"],
  number: NUMBER,
  integer: NUMBER,
  array: ["items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains", "additionalItems", "unevaluatedItems"],
  object: ["properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties"],
};

/** Any JSON value, one type per branch (integer is a number; an array's items and an object's values are anything). */
const ANY_JSON: Schema[] = [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "object", additionalProperties: true }, { type: "array" }, { type: "null" }];

/** A copy of `schema` in the portable spelling (the input is not changed). */
export function portableSchema(schema: Schema): Schema {
  return rewrite(schema, undefined) as Schema;
}

/** `keyword`: the keyword this schema is the value of (undefined at the root or in a list or map). */
function rewrite(node: unknown, keyword: string | undefined): unknown {
  if (typeof node === "boolean") {
    if (keyword !== undefined && BOOLEAN_VALUED.has(keyword)) return node;
    // `true`/`false` where a schema object is expected: its object spellings.
    return node ? { anyOf: structuredClone(ANY_JSON) } : { not: {} };
  }
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  let schema = node as Schema;
  if (Array.isArray(schema.type)) schema = splitTypes(schema, schema.type as string[]);
  else if (keyword !== "not" && !validates(schema)) {
    // Under `not`, `{}` is the plain spelling of "no value" (z.never()); the Inspector accepts it there.
    if (keyword !== undefined && BOOLEAN_VALUED.has(keyword) && Object.keys(schema).length === 0) return true;
    schema = { ...schema, anyOf: structuredClone(ANY_JSON) };
  }
  const out: Schema = { ...schema };
  for (const key of ONE) if (key in out) out[key] = rewrite(out[key], key);
  for (const key of LIST) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((sub) => rewrite(sub, undefined));
  for (const key of MAP) {
    const map = out[key];
    if (map && typeof map === "object" && !Array.isArray(map)) out[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, rewrite(sub, undefined)]));
  }
  return out;
}

function validates(schema: Schema): boolean {
  return Object.keys(schema).some((k) => VALIDATION.has(k)) || ("if" in schema && ("then" in schema || "else" in schema));
}

/**
 * `{type: [A, B], ...}` as `{..., anyOf: [{type: A, ...A's keywords}, {type: B, ...}]}`: the
 * keywords that constrain one type go into its branch; the rest (annotations, enum, const) stay.
 */
function splitTypes(schema: Schema, types: string[]): Schema {
  const moved = new Set(types.flatMap((t) => OF_TYPE[t] ?? []));
  const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "type" && !moved.has(k)));
  const branches = types.map((t) => ({ type: t, ...Object.fromEntries((OF_TYPE[t] ?? []).filter((k) => k in schema).map((k) => [k, schema[k]])) }));
  if (branches.length === 1) return { ...rest, ...branches[0] };
  // One anyOf per schema: a schema that has one already gets the type choice beside it in allOf.
  if (rest.anyOf === undefined) return { ...rest, anyOf: branches };
  return { ...rest, allOf: [...((rest.allOf as unknown[] | undefined) ?? []), { anyOf: branches }] };
}
