/**
 * @module push/filters
 * What a subscription hears. Signals by type, minimum score, qualification and entity; graph
 * changes (opt-in: a snapshot changes thousands of entities) by entity and operation. Entities are
 * given by name or URI and resolved to URIs when the subscription is made, so an unknown name is a
 * 404 before payment, and a later rename cannot change what a paid subscription hears.
 */
import { z } from "zod";
import { QUALIFICATIONS } from "../signals/store.ts";
import type { PushEvent } from "./events.ts";

const entityList = z.array(z.string().min(1).max(2000)).min(1).max(100);

export const filtersInputSchema = z.strictObject({
  signals: z
    .union([
      z.strictObject({
        types: z.array(z.string().min(1).max(64)).min(1).max(64).optional().describe("signal type slugs (GET /api/signals/catalog); none: every type"),
        min_score: z.number().min(0).max(100).optional().describe("only signals scoring at least this (0-100)"),
        qualification: z.array(z.enum(QUALIFICATIONS)).min(1).optional().describe("only signals in these states; none: every state"),
        entities: entityList.optional().describe("only signals about one of these entities (names or URIs)"),
      }),
      z.literal(false),
    ])
    .default({})
    .describe("which signal events (signal.new, signal.updated, signal.ended) to hear; false: none"),
  changes: z
    .union([
      z.strictObject({
        entities: entityList.optional().describe("only changes of these entities (names or URIs)"),
        operations: z.array(z.enum(["CREATE", "UPDATE"])).min(1).optional().describe("only these operations"),
      }),
      z.literal(false),
    ])
    .default(false)
    .describe("which graph changes to hear ({} for all); false (the default): none"),
});
export type FiltersInput = z.output<typeof filtersInputSchema>;

/** Filters as stored and matched: entities as URIs. */
export const filtersSchema = z.object({
  signals: z.union([
    z.object({
      types: z.array(z.string()).optional(),
      min_score: z.number().optional(),
      qualification: z.array(z.enum(QUALIFICATIONS)).optional(),
      entities: z.array(z.string()).optional(),
    }),
    z.literal(false),
  ]),
  changes: z.union([z.object({ entities: z.array(z.string()).optional(), operations: z.array(z.enum(["CREATE", "UPDATE"])).optional() }), z.literal(false)]),
});
export type Filters = z.infer<typeof filtersSchema>;

/** A filter made fast to apply many times (a scan's thousands of events against thousands of subscriptions). */
export type Matcher = (event: PushEvent) => boolean;

export function matcher(filters: Filters): Matcher {
  const { signals, changes } = filters;
  const types = signals && signals.types ? new Set(signals.types) : undefined;
  const qualifications = signals && signals.qualification ? new Set<string>(signals.qualification) : undefined;
  const signalEntities = signals && signals.entities ? new Set(signals.entities) : undefined;
  const changeEntities = changes && changes.entities ? new Set(changes.entities) : undefined;
  const operations = changes && changes.operations ? new Set<string>(changes.operations) : undefined;
  return (event) => {
    if (event.type === "change") {
      if (!changes) return false;
      if (changeEntities && !changeEntities.has(event.data.entity_uri)) return false;
      return !operations || operations.has(event.data.operation);
    }
    if (!signals) return false;
    const s = event.data;
    if (types && !types.has(s.signal_type)) return false;
    if (signals.min_score !== undefined && s.score < signals.min_score) return false;
    if (qualifications && !qualifications.has(s.qualification)) return false;
    return !signalEntities || s.entities.some((uri) => signalEntities.has(uri));
  };
}
