/**
 * @module scripts/docs/schema-fields
 * A JSON Schema (as operations/json-schema writes it: the portable spelling, no `$ref`) as tables of
 * fields people read: one row per field with its type, whether it is required and what it is (its
 * description, limits and default). Nested objects are flattened with dotted names (`filters.signals.types`),
 * array items take `[]` (`signals[].score`), a map's values `.*`. Where a value is one of several
 * object shapes (an answer that is rows or a graph, a batch result that is found or an error), each
 * shape gets a table of its own, named by what tells it apart.
 *
 * @example
 * fieldTables({ type: "object", properties: { q: { type: "string", maxLength: 500 } }, required: ["q"] });
 * // [{ fields: [{ name: "q", type: "string", required: true, description: "at most 500 characters" }] }]
 */
export type Schema = Record<string, unknown>;

export interface Field {
  /** Dotted from the root: `summary.highest.score`, `signals[].evidence.window.from`. */
  name: string;
  type: string;
  required: boolean;
  /** The schema's description, then its limits and default. */
  description: string;
}

export interface FieldTable {
  /** Which shape of a value that is one of several (absent for the main table). */
  title?: string;
  fields: Field[];
}

/** zod's bounds of a safe integer: a plain `integer`, not a limit worth stating. */
const SAFE = Number.MAX_SAFE_INTEGER;
/** The portable spelling of "any JSON value" (operations/portable-schema): six branches, one per type. */
const ANY_TYPES = ["string", "number", "boolean", "object", "array", "null"].join(",");

/** The tables of a schema's fields: the main one first (empty when the root itself is one of several shapes), then each shape's. */
export function fieldTables(schema: Schema): FieldTable[] {
  const main: Field[] = [];
  const shapes: FieldTable[] = [];
  descend(schema, "", main, shapes);
  return [{ fields: main }, ...shapes];
}

/** The type of a value as a short phrase: `string`, `integer or null`, `array of string`, one of `a`, `b`. */
export function typeOf(schema: Schema): string {
  if ("const" in schema) return `\`${JSON.stringify(schema.const)}\``;
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => `\`${typeof v === "string" ? v : JSON.stringify(v)}\``).join(", ");
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (branches) {
    if (branches.map((b) => b.type).join(",") === ANY_TYPES) return "any";
    return [...new Set(branches.map(typeOf))].join(" or ");
  }
  if ("not" in schema) return "nothing";
  switch (schema.type) {
    case "array":
      return schema.items ? `array of ${plural(typeOf(schema.items as Schema))}` : "array";
    case "object": {
      const values = schema.additionalProperties;
      if (!schema.properties && values && typeof values === "object") return `map of ${plural(typeOf(values as Schema))}`;
      return "object";
    }
    case undefined:
      return "any";
    default:
      return String(schema.type);
  }
}

/** What a field is: its description, then its limits and default, as sentences. */
export function describeField(schema: Schema): string {
  const said = typeof schema.description === "string" ? schema.description.trim() : "";
  const limits = limitsOf(nonNull(schema));
  const notes = [
    ...(limits ? [limits] : []),
    ...(schema.pattern !== undefined ? [`matches \`${String(schema.pattern)}\``] : []),
    ...(schema.format !== undefined ? [`format ${String(schema.format)}`] : []),
    ...("default" in schema ? [`default \`${JSON.stringify(schema.default)}\``] : []),
  ];
  if (notes.length === 0) return said;
  const joined = notes.join("; ");
  return said ? `${said.replace(/\.$/, "")}. ${joined[0]!.toUpperCase()}${joined.slice(1)}.` : `${joined[0]!.toUpperCase()}${joined.slice(1)}.`;
}

function plural(type: string): string {
  // "array of object" reads as a list; backticked enum values and unions stay as they are.
  return /^[a-z]+$/.test(type) ? type : `(${type})`;
}

function limitsOf(schema: Schema): string | undefined {
  /** `unit` in the singular ("character"): "1 to 500 characters", "at least 1 item". */
  const range = (low: unknown, high: unknown, unit = "") => {
    const lo = typeof low === "number" && low > -SAFE ? low : undefined;
    const hi = typeof high === "number" && high < SAFE ? high : undefined;
    const of = (n: number) => (unit ? ` ${unit}${n === 1 ? "" : "s"}` : "");
    if (lo !== undefined && hi !== undefined) return lo === hi ? `exactly ${lo}${of(lo)}` : `${lo} to ${hi}${of(hi)}`;
    if (lo !== undefined) return `at least ${lo}${of(lo)}`;
    if (hi !== undefined) return `at most ${hi}${of(hi)}`;
    return undefined;
  };
  const parts = [
    range(schema.minimum, schema.maximum),
    typeof schema.exclusiveMinimum === "number" ? `above ${schema.exclusiveMinimum}` : undefined,
    typeof schema.exclusiveMaximum === "number" ? `below ${schema.exclusiveMaximum}` : undefined,
    range(schema.minLength, schema.maxLength, "character"),
    range(schema.minItems, schema.maxItems, "item"),
  ].filter((part) => part !== undefined);
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/** The schema without its `null` branch: `string or null` constrains like `string`. */
function nonNull(schema: Schema): Schema {
  const branches = schema.anyOf as Schema[] | undefined;
  if (!branches) return schema;
  const rest = branches.filter((b) => b.type !== "null");
  return rest.length === 1 ? { ...rest[0], ...(schema.description ? { description: schema.description } : {}) } : schema;
}

function objectsOf(schema: Schema): Schema[] {
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  const candidates = branches ?? [schema];
  return candidates.filter((b) => b.type === "object" && b.properties && Object.keys(b.properties).length > 0);
}

/** Adds the fields under a value at `name` (root: ""), its shapes as tables of their own. */
function descend(schema: Schema, name: string, fields: Field[], shapes: FieldTable[]): void {
  const value = nonNull(schema);
  const prefix = name === "" ? "" : `${name}.`;
  const objects = objectsOf(value);
  if (objects.length === 1) return walkObject(objects[0]!, prefix, fields, shapes);
  if (objects.length > 1) {
    for (const [i, shape] of objects.entries()) {
      const own: Field[] = [];
      const nested: FieldTable[] = [];
      walkObject(shape, prefix, own, nested);
      const whose = name === "" ? "" : `\`${name}\`, `;
      shapes.push({ title: `${whose}shape ${i + 1} of ${objects.length}, ${shapeLabel(shape, objects)}`, fields: own }, ...nested);
    }
    return;
  }
  if (value.type === "array" && value.items) return descend(value.items as Schema, `${name}[]`, fields, shapes);
  const values = value.additionalProperties;
  if (value.type === "object" && values && typeof values === "object") descend(values as Schema, `${name}.*`, fields, shapes);
}

function walkObject(schema: Schema, prefix: string, fields: Field[], shapes: FieldTable[]): void {
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const [key, sub] of Object.entries(schema.properties as Record<string, Schema>)) {
    fields.push({ name: `${prefix}${key}`, type: typeOf(sub), required: required.has(key), description: describeField(sub) });
    descend(sub, `${prefix}${key}`, fields, shapes);
  }
}

/** What tells a shape from the others: a constant field they differ on, else the required fields only it has. */
function shapeLabel(shape: Schema, all: Schema[]): string {
  const props = (s: Schema) => s.properties as Record<string, Schema>;
  const tag = Object.keys(props(shape)).find((key) => {
    const values = all.map((s) => props(s)[key]?.const);
    return values.every((v) => v !== undefined) && new Set(values.map((v) => JSON.stringify(v))).size === all.length;
  });
  if (tag) return `when \`${tag}\` is \`${JSON.stringify(props(shape)[tag]!.const)}\``;
  const own = ((shape.required as string[] | undefined) ?? []).filter((key) => all.every((s) => s === shape || !(key in props(s))));
  return own.length > 0 ? `with ${own.map((key) => `\`${key}\``).join(", ")}` : "another shape";
}
