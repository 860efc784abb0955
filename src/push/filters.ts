/**
 * @module push/filters
 * What a subscription hears. Signals by type, minimum score, qualification and entity; graph
 * changes (opt-in: a snapshot changes thousands of entities) by entity and operation. Entities are
 * given by name or URI and resolved to URIs when the subscription is made, so an unknown name is a
 * 404 before payment, and a later rename cannot change what a paid subscription hears.
 */
import { LRUCache } from "lru-cache";
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

/** Distinct filter texts kept parsed. */
const PARSED_KEPT = 1000;
const parsed = new LRUCache<string, Filters>({ max: PARSED_KEPT });
const matchers = new WeakMap<Filters, Matcher>();

/**
 * Filters as stored (their JSON), parsed once per distinct text and shared, read-only, by every
 * subscription that has it: a fan-out reads thousands of subscriptions, most with the same few
 * filters, and parsing each with its schema was a tenth of a 100,000-subscription fan-out.
 */
export function storedFilters(text: string): Filters {
  let filters = parsed.get(text);
  if (!filters) {
    filters = deepFreeze(filtersSchema.parse(JSON.parse(text)));
    parsed.set(text, filters);
  }
  return filters;
}

/** Shared objects may not change under another subscription: frozen to the leaves. */
function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/** A filter made fast to apply many times (a scan's thousands of events against thousands of subscriptions). */
export type Matcher = (event: PushEvent) => boolean;

/** The matcher of `filters` (made once per filters object: shared filters share it). */
export function matcher(filters: Filters): Matcher {
  let made = matchers.get(filters);
  if (!made) {
    made = makeMatcher(filters);
    matchers.set(filters, made);
  }
  return made;
}

function makeMatcher(filters: Filters): Matcher {
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
