/**
 * The portable spelling (operations/portable-schema) keeps the contract: each rewrite (a type
 * array split into anyOf, an untyped schema typed, a bare boolean as an object) accepts exactly the
 * values the original accepts, checked with a real validator (Ajv) over values of every JSON type.
 * That it is portable is the Inspector's to judge (test/mcp/inspector.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import { portableSchema } from "../../src/operations/portable-schema.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";

const VALUES: unknown[] = [null, true, false, 0, 3, 2.5, -7, "", "ab", "2026-01-01", [], [1], ["a", "b"], [null], {}, { a: 1 }, { a: "x", b: null }, { items: [1, 2] }];

const CASES: Record<string, Record<string, unknown>> = {
  "nullable string with a length": { type: ["string", "null"], minLength: 2, description: "kept beside the branches" },
  "nullable integer with bounds": { type: ["integer", "null"], minimum: 0, maximum: 5 },
  "number, string or null": { type: ["number", "string", "null"] },
  "nullable array of strings": { type: ["array", "null"], items: { type: "string" }, minItems: 1 },
  "a type array beside an anyOf": { type: ["string", "number"], anyOf: [{ minLength: 2 }, { minimum: 2 }] },
  "a one-type array": { type: ["string"], maxLength: 3 },
  "an untyped property": { type: "object", properties: { a: {}, b: { description: "anything" } } },
  "a record of unknowns": { type: "object", propertyNames: { type: "string" }, additionalProperties: {} },
  "untyped at the root": {},
  "bare booleans as items": { type: "object", properties: { yes: { type: "array", items: true }, no: { type: "array", items: false } } },
  "nothing, under not": { not: {} },
};

function accepts(schema: Record<string, unknown>): (value: unknown) => boolean {
  const validate = new AjvJsonSchemaValidator().getValidator(schema);
  return (value) => validate(value).valid;
}

describe("portableSchema", () => {
  for (const [name, schema] of Object.entries(CASES)) {
    test(`${name}: accepts exactly what the original accepts`, () => {
      const before = structuredClone(schema);
      const portable = portableSchema(schema);
      expect(schema).toEqual(before); // the input is left as it was
      const [original, rewritten] = [accepts(schema), accepts(portable)];
      for (const value of VALUES) expect(rewritten(value), `${JSON.stringify(value)} under ${JSON.stringify(portable)}`).toBe(original(value));
      expect(JSON.stringify(portable)).not.toMatch(/"type":\[/);
    });
  }

  test("a nullable field: one branch per type, its constraints in its branch, annotations beside", () => {
    expect(portableSchema({ type: ["string", "null"], minLength: 2, description: "d" })).toEqual({ description: "d", anyOf: [{ type: "string", minLength: 2 }, { type: "null" }] });
  });

  test("an untyped value: true where a boolean is allowed, every JSON type elsewhere", () => {
    expect(portableSchema({ type: "object", additionalProperties: {} })).toEqual({ type: "object", additionalProperties: true });
    const { a } = portableSchema({ type: "object", properties: { a: {} } }).properties as { a: { anyOf: { type: string }[] } };
    expect(a.anyOf.map((branch) => branch.type)).toEqual(["string", "number", "boolean", "object", "array", "null"]);
  });

  test("every operation's input and output: same verdicts on its example and on values of every type", () => {
    for (const op of OPERATIONS) {
      for (const io of ["input", "output"] as const) {
        const { $schema: _, ...raw } = z.toJSONSchema(io === "input" ? op.input : op.output, { io, unrepresentable: "any" }) as Record<string, unknown>;
        const [original, rewritten] = [accepts(raw), accepts(portableSchema(raw))];
        for (const value of [...VALUES, op.example]) expect(rewritten(value), `${op.name} ${io}: ${JSON.stringify(value)}`).toBe(original(value));
      }
    }
  });
});
