/**
 * Each operation's declared effects (operations/effects) held to what it does, over real HTTP
 * (app.handle) on real services with payments off: every row of every table of the state store
 * and every file of the data directory (but the state database itself) before and after one call.
 * An operation declared to read must leave both as they were, answering 200 (so it ran); one that
 * adds must add rows and remove none; one that destroys must overwrite or delete a row; a second
 * identical call must change nothing more when declared idempotent, and something when not. So an
 * operation that writes but says it only reads fails here (the last test shows the check catches it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { type Effects, READS, assertEffectsFitMethods, describeEffects } from "../../src/operations/effects.ts";
import { type AnyOperation, inQuery, pathParams } from "../../src/operations/operation.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { type Running, startServices } from "../support/fixture.ts";
import { until } from "../support/until.ts";
import { scan, snapshotOf } from "../signals/support.ts";

let run: Running;
/** A subscription of this test's, for the operations that act on one (their examples name none that exists). */
let subscription: { id: string; secret: string };

type State = { rows: Map<string, Set<string>>; files: string };

/** Every row of every table of the state store (SQLite), as JSON per table. */
async function stateRows(): Promise<Map<string, Set<string>>> {
  const tables = await run.services.state.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name");
  const rows = new Map<string, Set<string>>();
  for (const { name } of tables) rows.set(name, new Set((await run.services.state.all<Record<string, unknown>>(`SELECT * FROM "${name}"`)).map((row) => JSON.stringify(row))));
  return rows;
}

/** A digest of every file of the data directory but the state database (compared row by row) and unpacked native libraries. */
function filesDigest(): string {
  const hash = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      const rel = relative(run.dir, path);
      if (rel.startsWith("state.sqlite") || rel === "runtime") continue;
      if (entry.isDirectory()) walk(path);
      else hash.update(rel).update("\0").update(readFileSync(path)).update("\0");
    }
  };
  walk(run.dir);
  return hash.digest("hex");
}

/** The state once nothing in the background is writing: the same twice in a row. */
async function settledState(): Promise<State> {
  let last: string | undefined;
  let state: State | undefined;
  await until("the state store to settle", 30_000, async () => {
    state = { rows: await stateRows(), files: filesDigest() };
    const text = JSON.stringify([...state.rows].map(([t, r]) => [t, [...r].sort()]));
    const same = text === last;
    last = text;
    return same;
  });
  return state!;
}

/** Rows one state has that the other has not, by table: a changed row is one removed and one added. */
function difference(before: State, after: State): { added: string[]; removed: string[]; files: boolean } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const table of new Set([...before.rows.keys(), ...after.rows.keys()])) {
    const was = before.rows.get(table) ?? new Set();
    const is = after.rows.get(table) ?? new Set();
    for (const row of is) if (!was.has(row)) added.push(`${table}: ${row}`);
    for (const row of was) if (!is.has(row)) removed.push(`${table}: ${row}`);
  }
  return { added, removed, files: before.files !== after.files };
}

/** Calls an operation over HTTP with an input (path parameters in the path, the rest in the query or body; a bearer field as Authorization). */
async function call(op: AnyOperation, input: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const rest = { ...input };
  let path = op.path;
  for (const name of pathParams(op.path)) {
    path = path.replace(`:${name}`, encodeURIComponent(String(rest[name])));
    delete rest[name];
  }
  const headers: Record<string, string> = {};
  if (op.bearer && rest[op.bearer] !== undefined) {
    headers.authorization = `Bearer ${rest[op.bearer]}`;
    delete rest[op.bearer];
  }
  const query = inQuery(op) ? `?${new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)]))}` : "";
  const response = await run.request(op.method, `${path}${query}`, inQuery(op) ? undefined : rest, headers);
  return { status: response.status, body: await response.json() };
}

/** A new subscription (its id and secret), made over HTTP. */
async function subscribed(): Promise<{ id: string; secret: string }> {
  const made = await run.request("POST", "/api/subscriptions", { stream: true });
  const body = (await made.json()) as { subscription_id: string; secret: string };
  return { id: body.subscription_id, secret: body.secret };
}

/** The input to call an operation with: its example, on a real subscription where it takes one (its example names none that exists). */
function inputFor(op: AnyOperation, on = subscription): Record<string, unknown> {
  const example = op.example as Record<string, unknown>;
  return "subscription_id" in example ? { ...example, subscription_id: on.id, secret: on.secret } : example;
}

/** Throws when a call of `op` with `input` (twice, for one that writes) does not do what `effects` says. */
async function holdTo(op: AnyOperation, effects: Effects, input: Record<string, unknown>): Promise<void> {
  const before = await settledState();
  const first = await call(op, input);
  if (first.status !== 200) throw new Error(`${op.name} answered ${first.status}: ${JSON.stringify(first.body)}`);
  const once = await settledState();
  const changed = difference(before, once);
  const changes = changed.added.length + changed.removed.length;
  if (effects.state === "reads") {
    if (changes > 0 || changed.files) throw new Error(`${op.name} is declared to read only, but it changed the state: ${JSON.stringify(changed).slice(0, 600)}`);
    return;
  }
  if (changes === 0) throw new Error(`${op.name} is declared to change state, but changed nothing`);
  if (effects.state === "adds" && changed.removed.length > 0) throw new Error(`${op.name} is declared to only add, but it overwrote or deleted: ${changed.removed.slice(0, 3).join("; ")}`);
  if (effects.state === "destroys" && changed.removed.length === 0) throw new Error(`${op.name} is declared to destroy, but it only added`);
  await call(op, input);
  const again = difference(once, await settledState());
  const more = again.added.length + again.removed.length;
  if (effects.idempotent && more > 0) throw new Error(`${op.name} is declared idempotent, but a second identical call changed: ${JSON.stringify(again).slice(0, 600)}`);
  if (!effects.idempotent && more === 0) throw new Error(`${op.name} is declared not idempotent, but a second identical call changed nothing`);
}

beforeAll(async () => {
  run = await startServices();
  // Signal routes answer only once a scan has run.
  await scan(run.dir, run.services.state, snapshotOf(run.dir).manifest.as_of.slice(0, 10));
  subscription = await subscribed();
});
afterAll(() => run?.close());

const byState = (state: Effects["state"]) => OPERATIONS.filter((op) => op.effects.state === state);

describe("each operation does what its effects say", () => {
  test("the table declares each kind: reads, adds, destroys", () => {
    for (const state of ["reads", "adds", "destroys"] as const) expect(byState(state).length, state).toBeGreaterThan(0);
  });

  test.each(byState("reads").map((op) => [op.name, op] as const))("%s: declared to read only, changes no row and no file", async (_, op) => {
    await holdTo(op, op.effects, inputFor(op));
  });

  // Each on a subscription of its own, made before the state is first read.
  test.each([...byState("adds"), ...byState("destroys")].map((op) => [op.name, op] as const))("%s: changes state as declared, idempotent or not as declared", async (_, op) => {
    await holdTo(op, op.effects, inputFor(op, await subscribed()));
  });

  test("/openapi.json (x-effects, the description) and /docs say each operation's declared effects", async () => {
    const openapi = (await (await run.request("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, any>> };
    const docs = await (await run.request("GET", "/docs")).text();
    for (const op of OPERATIONS) {
      const entry = openapi.paths[op.path.replace(/:([a-z_]+)/g, "{$1}")]![op.method.toLowerCase()];
      expect(entry["x-effects"], op.name).toEqual(op.effects);
      expect(entry.description, op.name).toEndWith(describeEffects(op.effects));
      expect(docs).toContain(`<section id="${op.name}">`);
      expect(docs.slice(docs.indexOf(`<section id="${op.name}">`)).split("</section>")[0]).toContain(describeEffects(op.effects));
    }
  });

  test("a server refuses to start with a GET that writes or a DELETE that is not idempotent", () => {
    const get = { name: "g", method: "GET", effects: { state: "adds", idempotent: true, openWorld: false } } as const;
    const del = { name: "d", method: "DELETE", effects: { state: "destroys", idempotent: false, openWorld: false } } as const;
    expect(() => assertEffectsFitMethods([get, del])).toThrow("g: GET must only read (it says adds); d: DELETE must change state idempotently");
    expect(() => assertEffectsFitMethods(OPERATIONS)).not.toThrow();
  });

  test("an operation that writes but says it reads is caught, and one that reads but says it destroys", async () => {
    const subscribe = OPERATIONS.find((op) => op.name === "subscribe")!;
    await expect(holdTo(subscribe, READS, inputFor(subscribe))).rejects.toThrow(/declared to read only, but it changed the state/);
    const read = OPERATIONS.find((op) => op.name === "subscription")!;
    await expect(holdTo(read, { state: "destroys", idempotent: true, openWorld: false }, inputFor(read))).rejects.toThrow(/declared to change state, but changed nothing/);
  });
});
