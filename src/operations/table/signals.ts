/**
 * @module operations/table/signals
 * The signal routes of docs/spec.md §4.6-4.8, §4.10 and §4.11: per-type lists, the free overview and
 * catalog, one entity's analysis, and the batch of up to ten entities.
 */
import { z } from "zod";
import { CkgError, errorBodySchema, isCkgError } from "../../errors.ts";
import { resolveEntity } from "../../graph/explore.ts";
import { BAND_STARTS } from "../../signals/bands.ts";
import { catalogSchema, signalCatalog } from "../../signals/catalog.ts";
import { DETECTORS } from "../../signals/detectors/index.ts";
import { describeNarration } from "../../signals/narrator.ts";
import {
  analyseEntity,
  assertScanned,
  assertSignalType,
  entityAnalysisSchema,
  qualificationFilter,
  signalListSchema,
  sinceIso,
} from "../../signals/insights.ts";
import { countByType, listSignals, querySignals } from "../../signals/store.ts";
import { SYNTHETIC_MARK } from "../../signals/synthetic.ts";
import type { OperationContext } from "../context.ts";
import { READS } from "../effects.ts";
import { defineOperation } from "../operation.ts";

const sinceHours = (fallback: number) => z.number().min(1).max(8760).default(fallback).describe("look-back window in hours (1..8760): signals a scan found since then");
const limit = z.number().int().min(1).max(500).default(50).describe("maximum signals (1..500)");
const MAX_BATCH = 10;

/** The live snapshot, once a first scan has run (503 before: no signal answer would be complete). */
async function ready({ services, live }: OperationContext) {
  await assertScanned(services.state, services.scheduler.scanning);
  return live;
}

export const signalsByType = defineOperation({
  name: "signals",
  method: "GET",
  path: "/api/insights/signals/:signal_type",
  summary: "Signals of one type (one route per slug of the catalog)",
  description:
    `Signals of one of the ${DETECTORS.length} types (GET /api/signals/catalog lists them), strongest first: score 0..100 (${BAND_STARTS}), ` +
    "evidence naming the metric, its value, window and data points, and the qualification; synthetic: true when any " +
    `source is generated demo data (the evidence summary then ends with "${SYNTHETIC_MARK}"). since_hours (default 72) keeps ` +
    "signals a scan found in that window; qualification filters by state (default qualified; all for every state). Unknown type: 404.",
  priceUsd: 0.2,
  effects: READS,
  input: z.strictObject({
    signal_type: z.string().min(1).max(100),
    since_hours: sinceHours(72),
    limit,
    qualification: qualificationFilter,
  }),
  output: signalListSchema,
  needs: ["snapshot"],
  example: { signal_type: "yield-anomaly", since_hours: 72, limit: 10, qualification: "all" },
  async prepare(input, ctx) {
    assertSignalType(input.signal_type);
    await ready(ctx);
    return input;
  },
  async handler(input, { services }) {
    const { signals, total } = await querySignals(services.state, {
      types: [input.signal_type],
      qualification: input.qualification,
      since: sinceIso(input.since_hours),
      limit: input.limit,
    });
    return { signals, count: signals.length, total };
  },
});

export const signalsOverview = defineOperation({
  name: "signals_overview",
  method: "GET",
  path: "/api/insights/signals",
  summary: "Recent signals across all types (free)",
  description:
    "The strongest recent signals of every type, with counts per type. Filters: signal_type (a slug), qualification (default qualified; " +
    "all for every state), entity (a name or URI; or a wallet's CAIP-10 id), since_hours (default 72), limit (default 50, 1..500).",
  priceUsd: 0,
  effects: READS,
  input: z.strictObject({
    limit,
    since_hours: sinceHours(72),
    signal_type: z.string().min(1).max(100).optional(),
    qualification: qualificationFilter,
    entity: z.string().min(1).max(2000).optional(),
  }),
  output: signalListSchema.extend({
    by_type: z.record(z.string(), z.number().int()).describe("matching signals per type"),
    entity: z.object({ uri: z.string(), name: z.string() }).nullable(),
  }),
  needs: ["snapshot"],
  example: { limit: 20, qualification: "qualified" },
  async handler(input, ctx) {
    if (input.signal_type) assertSignalType(input.signal_type);
    const live = await ready(ctx);
    let entity: { uri: string; name: string } | null = null;
    if (input.entity) {
      if (/^[a-z0-9-]+:[a-zA-Z0-9-]+:0x[0-9a-fA-F]{40}$/.test(input.entity)) entity = { uri: input.entity, name: input.entity };
      else {
        const { node } = resolveEntity(live.names, input.entity);
        entity = { uri: node.uri, name: node.name };
      }
    }
    const query = {
      types: input.signal_type ? [input.signal_type] : undefined,
      qualification: input.qualification,
      since: sinceIso(input.since_hours),
      entities: entity ? [entity.uri] : undefined,
    };
    // The total is the sum of the counts by type: one pass over the signals, not two (72,615 on the full data).
    const [byType, signals] = await Promise.all([countByType(ctx.services.state, query), listSignals(ctx.services.state, { ...query, limit: input.limit })]);
    return { signals, count: signals.length, total: Object.values(byType).reduce((sum, n) => sum + n, 0), by_type: byType, entity };
  },
});

export const entityInsights = defineOperation({
  name: "entity_insights",
  method: "GET",
  path: "/api/insights/entity/:entity_name",
  summary: "Every active signal on one entity, its narratives and a summary",
  description: (settings) =>
    "Analysis of one entity (exact name, symbol or URI; find names with /api/search): its active signals of every type with evidence, the " +
    "narratives that link them with actionability (urgent, watchlist, informational), and a short summary. since_hours defaults to 168. " +
    `${describeNarration(settings)} ` +
    `Signals, narratives and the summary carry synthetic: true at their top (and their text ends with "${SYNTHETIC_MARK}") when any ` +
    "source is generated demo data; an entity no time-series has rows for says so in the summary (real figures come with `ckg ingest`). " +
    "Unknown entity: 404 with suggestions.",
  priceUsd: 1.5,
  effects: READS,
  input: z.strictObject({ entity_name: z.string().min(1).max(2000), since_hours: sinceHours(168) }),
  output: entityAnalysisSchema,
  needs: ["snapshot"],
  example: { entity_name: "Aave", since_hours: 168 },
  async prepare(input, ctx) {
    return { input, entity: resolveEntity((await ready(ctx)).names, input.entity_name) };
  },
  async handler({ input, entity: { node, others } }, { services, live }) {
    return analyseEntity(services.state, node, others, input.since_hours, live.series.tablesOf(node.id));
  },
});

const batchItemSchema = z.union([
  z.object({ query: z.string(), status: z.literal("found"), analysis: entityAnalysisSchema }),
  z.object({
    query: z.string(),
    status: z.literal("not_found"),
    error: errorBodySchema.shape.error.extend({ code: z.literal("entity_not_found") }),
  }),
]);

export const insightsBatch = defineOperation({
  name: "insights_batch",
  method: "POST",
  path: "/api/insights/batch",
  summary: "Entity analyses for up to ten entities in one answer",
  description:
    `The entity insights answer for each of 1..${MAX_BATCH} entities (names or URIs), in the order given. An unknown name gets its own not_found ` +
    `entry with suggestions instead of failing the batch. More than ${MAX_BATCH} entities, or none: 422 too_many_entities.`,
  priceUsd: 7.5,
  effects: READS,
  input: z.strictObject({
    entities: z.array(z.string().min(1).max(2000)),
    since_hours: sinceHours(168),
  }),
  output: z.object({ results: z.array(batchItemSchema), count: z.number().int(), found: z.number().int() }),
  needs: ["snapshot"],
  example: { entities: ["Aave", "Uniswap"], since_hours: 168 },
  async prepare(input, ctx) {
    if (input.entities.length === 0 || input.entities.length > MAX_BATCH) {
      throw new CkgError("too_many_entities", `A batch takes 1 to ${MAX_BATCH} entities; this one has ${input.entities.length}.`, {
        details: { given: input.entities.length, max: MAX_BATCH },
      });
    }
    await ready(ctx);
    return input;
  },
  async handler(input, { services, live }) {
    const results = await Promise.all(
      input.entities.map(async (query) => {
        let found;
        try {
          found = resolveEntity(live.names, query);
        } catch (error) {
          if (!isCkgError(error) || error.code !== "entity_not_found") throw error;
          return { query, status: "not_found" as const, error: { code: error.code, message: error.message, details: error.details } };
        }
        const tables = live.series.tablesOf(found.node.id);
        return { query, status: "found" as const, analysis: await analyseEntity(services.state, found.node, found.others, input.since_hours, tables) };
      }),
    );
    return { results, count: results.length, found: results.filter((r) => r.status === "found").length };
  },
});

export const signalsCatalog = defineOperation({
  name: "signals_catalog",
  method: "GET",
  path: "/api/signals/catalog",
  summary: `The ${DETECTORS.length} signal types: descriptions, scoring criteria, evidence schemas (free)`,
  description:
    `Every signal type with its category, description, inputs, raw metric, scoring criteria (band thresholds on the 0..100 score: ${BAND_STARTS}), ` +
    "screens and the JSON Schema of its evidence; plus the qualification rules, and each type's measured quality: how often it caught, " +
    "preceded and was confirmed by labelled real events in a backtest (`quality`, with the window, labels and events at the top), or why it is unmeasured.",
  priceUsd: 0,
  effects: READS,
  input: z.strictObject({}),
  output: catalogSchema,
  needs: [],
  example: {},
  async handler() {
    return signalCatalog();
  },
});

