/**
 * @module scripts/docs/fields
 * The tables of the API reference that come from schemas and answers: a value's fields (its input,
 * its answer), each status a route answers with the error codes of that status, and a route's
 * answers by status.
 */
import { ERROR_CODES } from "../../src/errors.ts";
import { HTTP_STATUS } from "../../src/api/error-status.ts";
import { cell, code, escapePipes, table } from "./markdown.ts";
import { type Field, type Schema, fieldTables } from "./schema-fields.ts";
import type { OpenApiOperation } from "./server.ts";

/** Where a top-level input field is read from: `path`, `query`, `body`, or a header. */
export type Where = (name: string) => string;

/** A value's fields as tables: the main one, then each shape of a value that is one of several. */
export function fieldsMarkdown(schema: Schema, where?: Where): string {
  const blocks: string[] = [];
  for (const { title, fields } of fieldTables(schema)) {
    if (title) blocks.push(`${title[0]!.toUpperCase()}${title.slice(1)}:`);
    if (fields.length > 0) blocks.push(fieldsTable(fields, where));
  }
  return blocks.length > 0 ? blocks.join("\n\n") : "No fields.";
}

function fieldsTable(fields: readonly Field[], where?: Where): string {
  const header = where ? ["Field", "In", "Type", "Required", "Description"] : ["Field", "Type", "Required", "Description"];
  const rows = fields.map((field) => {
    const top = field.name.split(/[.[]/)[0]!;
    return [
      code(field.name),
      ...(where ? [cell(where(top))] : []),
      escapePipes(field.type),
      field.required ? "yes" : "no",
      cell(field.description),
    ];
  });
  return table(header, rows);
}

/** The error codes answered with an HTTP status (api/error-status), as code spans. */
export function codesWithStatus(status: number): string {
  const codes = ERROR_CODES.filter((c) => HTTP_STATUS[c] === status);
  return codes.length > 0 ? codes.map((c) => code(c)).join(", ") : "";
}

type Response = OpenApiOperation["responses"][string];

/**
 * A refusal: the 402 challenge, or a 4xx/5xx in the error shape (`{"error": {code, message, details}}`,
 * or no body described). A failure status with a body of its own (/readyz's 503) is one of the route's answers.
 */
function isRefusal(status: number, response: Response): boolean {
  if (status === 402) return true;
  const schema = response.content?.["application/json"]?.schema;
  return status >= 400 && (response.content === undefined || schema?.$ref === "#/components/schemas/Error");
}

/** The route's answers by status, in order. */
function byStatus(entry: OpenApiOperation): [number, Response][] {
  return Object.entries(entry.responses)
    .map(([status, response]): [number, Response] => [Number(status), response])
    .sort(([a], [b]) => a - b);
}

/** Every refusal a route answers with: its status, when, and the error codes that status carries. */
export function errorsMarkdown(entry: OpenApiOperation): string {
  const rows = byStatus(entry)
    .filter(([status, response]) => isRefusal(status, response))
    .map(([status, response]) => [String(status), cell(response.description), status === 402 ? "(the x402 challenge: a PAYMENT-REQUIRED header)" : codesWithStatus(status)]);
  return rows.length > 0 ? table(["Status", "When", "Error codes with this status"], rows) : "";
}

/** A documented route's own answers (not refusals): each status, its media type, and the JSON answer's fields. */
export function answersMarkdown(entry: OpenApiOperation): string {
  const blocks: string[] = [];
  /** Bodies already shown, by their schema: a second status with the same body says so instead of repeating it. */
  const shown = new Map<string, number>();
  for (const [status, response] of byStatus(entry)) {
    if (isRefusal(status, response)) continue;
    const types = Object.keys(response.content ?? {});
    const schema = response.content?.["application/json"]?.schema;
    const same = schema ? shown.get(JSON.stringify(schema)) : undefined;
    const media = types.length > 0 ? ` (${types.map((t) => code(t)).join(", ")}${same ? `, the same fields as ${same}` : ""})` : "";
    blocks.push(`**${status}**: ${cell(response.description)}${media}`);
    if (schema && same === undefined) {
      shown.set(JSON.stringify(schema), status);
      blocks.push(fieldsMarkdown(schema));
    }
  }
  return blocks.join("\n\n");
}
