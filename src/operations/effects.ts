/**
 * @module operations/effects
 * What running an operation does beyond answering, declared once in the operations table: whether
 * it only reads, adds to the server's state, or overwrites or deletes what was there; whether
 * repeating it changes anything more; whether it reaches addresses outside this server. MCP's tool
 * annotations (mcp/tools: readOnlyHint, destructiveHint, idempotentHint, openWorldHint), OpenAPI's
 * `x-effects` and the docs page are derived from it, and test/operations/effects.test.ts runs
 * every operation against the state store to hold each declaration to what the operation does.
 */

/**
 * - `reads`: changes nothing a later request could see (no row of the state store, no file).
 * - `adds`: adds to the state and loses nothing (MCP: "performs only additive updates").
 * - `destroys`: overwrites or deletes what was there (a secret replaced, a subscription deleted).
 *
 * `openWorld`: it reaches addresses beyond this server and the backends its operator configured
 * (a webhook URL the caller gives). The graph store, an embedding endpoint or a narrator the
 * operator set up are this server's own: they make no operation open-world.
 */
export type Effects =
  | { readonly state: "reads"; readonly openWorld: boolean }
  | {
      readonly state: "adds" | "destroys";
      /** Calling it again with the same input changes nothing more. */
      readonly idempotent: boolean;
      readonly openWorld: boolean;
    };

/** The effects of an operation that only reads this server's own data. */
export const READS: Effects = { state: "reads", openWorld: false };

/** One sentence for people: the docs page, OpenAPI and the MCP tool descriptions. */
export function describeEffects(effects: Effects): string {
  const network = effects.openWorld ? " It reaches addresses outside this server (ones the caller gives)." : "";
  if (effects.state === "reads") return `Reads only: changes nothing on the server.${network}`;
  const what = effects.state === "adds" ? "Changes state: adds to it and removes nothing" : "Destroys: overwrites or deletes state";
  const again = effects.idempotent ? "repeating the same call changes nothing more" : "each call changes it again";
  return `${what}; ${again}.${network}`;
}

/**
 * Fails when an operation's effects contradict its HTTP method: a GET must only read (HTTP calls it
 * safe: caches, crawlers and prefetchers send it freely), a DELETE must be idempotent (HTTP says so).
 */
export function assertEffectsFitMethods(operations: readonly { name: string; method: string; effects: Effects }[]): void {
  const offenders = operations.flatMap((op) => {
    if (op.method === "GET" && op.effects.state !== "reads") return [`${op.name}: GET must only read (it says ${op.effects.state})`];
    if (op.method === "DELETE" && (op.effects.state === "reads" || !op.effects.idempotent)) return [`${op.name}: DELETE must change state idempotently`];
    return [];
  });
  if (offenders.length > 0) throw new Error(`Operation effects contradict their methods: ${offenders.join("; ")}`);
}
