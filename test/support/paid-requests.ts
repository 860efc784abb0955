/**
 * Requests for the payment tests: a valid request for each operation (from its table example), and
 * the fetch options to send one with extra headers.
 */
import { OPERATIONS } from "../../src/operations/table/index.ts";

export interface PaidCall {
  method: string;
  path: string;
  body?: unknown;
}

/** A request for an operation, with its example input. */
export function requestFor(name: string): PaidCall {
  const op = OPERATIONS.find((o) => o.name === name)!;
  const example = op.example as Record<string, unknown>;
  const params = [...op.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
  const path = op.path.replace(/:([a-z_]+)/g, (_, p: string) => encodeURIComponent(String(example[p])));
  const rest = Object.fromEntries(Object.entries(example).filter(([k]) => !params.includes(k)));
  return op.method === "GET"
    ? { method: "GET", path: `${path}?${new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)]))}` }
    : { method: "POST", path, body: rest };
}

export const init = (r: { method: string; body?: unknown }, headers: Record<string, string> = {}): RequestInit => ({
  method: r.method,
  headers: { "content-type": "application/json", ...headers },
  ...(r.body === undefined ? {} : { body: JSON.stringify(r.body) }),
});
