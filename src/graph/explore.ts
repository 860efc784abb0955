/**
 * @module graph/explore
 * Explore: one entity's attributes and relationships, grouped by the ten focus categories of the
 * spec. Each value and link names its source. Hubs (a chain with 100,000 tokens) show the first
 * items of each relationship and the total, never a silent cut. A block says at its top whether any
 * of its links or figures is synthetic demo data, and an entity with no series says so instead of
 * showing figures (a real entity before an ingest has none). A dated event linked to the entity (a
 * security incident of a protocol, under defi) carries its own date, amount and kind as `details`.
 */
import { z } from "zod";
import { CkgError } from "../errors.ts";
import type { IndexedNode, NameIndex } from "../entities/name-index.ts";
import { type FiguresByCategory, NO_SERIES_NOTE, figureSchema } from "../timeseries/figures.ts";
import type { FactIndex } from "./fact-index.ts";
import type { Ontology } from "./ontology.ts";
import type { Term } from "./protocol.ts";
import { plainValue } from "./sparql.ts";
import {
  ENTITY_TYPES,
  FOCUS_CATEGORIES,
  type FocusCategory,
  type Namespaces,
  type NodeType,
  RDF_TYPE,
  SCHEMA_NAME,
  SUPPORT_TYPES,
  fieldName,
} from "../entities/vocabulary.ts";

/** Links shown per relationship (predicate and direction); the total is always given. */
export const ITEMS_PER_RELATIONSHIP = 100;
/** At most this many facts with the entity as subject (the busiest entity of the full data has 952). */
export const OUTGOING_LIMIT = 5000;

export const exploreInputSchema = z.strictObject({
  entity_name: z.string().trim().min(1, "entity_name must not be empty").max(500),
  entity_type: z.enum([...ENTITY_TYPES, ...SUPPORT_TYPES]).optional(),
  focus: z.array(z.enum(FOCUS_CATEGORIES)).min(1).max(FOCUS_CATEGORIES.length).optional(),
});
export type ExploreInput = z.output<typeof exploreInputSchema>;

const relatedEntitySchema = z.object({
  predicate: z.string(),
  label: z.string(),
  direction: z.enum(["outgoing", "incoming"]),
  uri: z.string(),
  name: z.string().nullable(),
  type: z.string().nullable(),
  labels: z.array(z.string()),
  source: z.string(),
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
    .optional()
    .describe("a dated event's own figures (a security incident's occurredOn, amountUsd, technique, ...), so a protocol's incidents read without exploring each"),
});
export type RelatedEntity = z.infer<typeof relatedEntitySchema>;

const categoryBlockSchema = z.object({
  synthetic: z.boolean().describe("true when any link or figure of this block comes from a synthetic (generated demo) source"),
  count: z.number().int(),
  truncated: z.boolean(),
  items: z.array(relatedEntitySchema),
  /** market and financial_metrics: the entity's latest figures from the time-series. */
  figures: z.array(figureSchema).optional(),
  figures_note: z.string().optional().describe("market and financial_metrics of an entity no time-series has rows for: says so, and how real figures are loaded"),
});
export type CategoryBlock = z.infer<typeof categoryBlockSchema>;

// A literal's plain JSON value (graph/sparql plainValue): typed, so the answer's schema says what it holds.
const attributeValueSchema = z.object({ value: z.union([z.string(), z.number(), z.boolean()]), source: z.string() });
export type AttributeValue = z.infer<typeof attributeValueSchema>;

export const exploreResultSchema = z.object({
  status: z.literal("success"),
  entity: z.object({
    uri: z.string(),
    id: z.string(),
    name: z.string(),
    type: z.string(),
    labels: z.array(z.string()),
    synthetic: z.boolean().describe("true when the entity itself is generated demo data (its type comes only from synthetic sources)"),
    attributes: z.record(z.string(), z.array(attributeValueSchema)),
  }),
  relationships: z.partialRecord(z.enum(FOCUS_CATEGORIES), categoryBlockSchema),
  sources: z.array(z.string()),
  /** Other entities with the same name (and type, when given); pass one's URI to explore it instead. */
  other_matches: z.array(z.object({ uri: z.string(), name: z.string(), type: z.string() })),
});
export type ExploreResult = z.infer<typeof exploreResultSchema>;

export interface ExploreDeps {
  /** The entity's latest figures by category (from the time-series), when there is a store. */
  figures?: (entityId: string) => FiguresByCategory;
  /** The published tables with rows for the entity (asked only when it has no figures). */
  seriesTables?: (entityId: string) => string[];
  /** Ids of the snapshot's synthetic sources. */
  syntheticSources: ReadonlySet<string>;
  /** The snapshot's facts, by subject and by object (the neighbourhood without a graph round trip). */
  facts: FactIndex;
  names: NameIndex;
  ontology: Ontology;
  ns: Namespaces;
}

const NODE_TYPES = new Set<string>([...ENTITY_TYPES, ...SUPPORT_TYPES]);

/**
 * The entity a name means, as search finds it: its name, an alias or its symbol (case, spaces and
 * punctuation ignored), the most prominent first (a name match counts a little more than a symbol
 * or alias match); `others` are the rest, for other_matches. A URI names one entity.
 */
/** An entity a name or URI resolved to, and the other entities of that name (other_matches). */
export interface ResolvedEntity {
  node: IndexedNode;
  others: IndexedNode[];
}

export function resolveEntity(names: NameIndex, text: string, type?: NodeType): ResolvedEntity {
  const trimmed = text.trim();
  if (/^https?:\/\//i.test(trimmed)) {
    const node = names.byUri(trimmed);
    if (node && (!type || node.type === type)) return { node, others: [] };
  } else {
    const [node, ...others] = names.exactAny(trimmed, (t) => type === undefined || t === type);
    if (node) return { node, others };
  }
  const otherTypes = type ? names.exactAny(trimmed, () => true).map((n) => n.type) : [];
  const suggestions = names.suggest(trimmed, { type, limit: 5 });
  const hint = otherTypes.length > 0 ? ` It exists as ${[...new Set(otherTypes)].join(", ")}.` : "";
  throw new CkgError("entity_not_found", `No ${type ?? "entity"} is named "${trimmed}".${hint} Find names with /api/search.`, {
    details: {
      entity_name: trimmed,
      entity_type: type ?? null,
      suggestions: suggestions.map((s) => ({ name: s.name, uri: s.uri, type: s.type })),
    },
  });
}

/** Explores an entity already resolved (resolveEntity) from `input`'s name. */
export async function explore(deps: ExploreDeps, { node, others }: ResolvedEntity, input: ExploreInput): Promise<ExploreResult> {
  const categories = input.focus && input.focus.length > 0 ? input.focus : FOCUS_CATEGORIES;
  // Figures only go into the market and financial_metrics blocks: not asked when neither is.
  const wantsFigures = categories.includes("market") || categories.includes("financial_metrics");
  const figures: FiguresByCategory = deps.figures && wantsFigures ? deps.figures(node.id) : {};
  const hood = deps.facts.neighbourhood(node.uri, ITEMS_PER_RELATIONSHIP, OUTGOING_LIMIT);
  const sourceOf = (graph: string) => (graph.startsWith(deps.ns.source) ? graph.slice(deps.ns.source.length) : graph);
  const synthetic = (source: string) => deps.syntheticSources.has(source);
  const sources = new Set<string>();

  const blocks = new Map<FocusCategory, CategoryBlock>(categories.map((c) => [c, { synthetic: false, count: 0, truncated: false, items: [] }]));
  const attributes: Record<string, AttributeValue[]> = {};
  const labels = new Set<string>(node.labels);
  const typeSources: string[] = [];

  for (const fact of hood.outgoing) {
    const source = sourceOf(fact.graph);
    if (fact.predicate === RDF_TYPE) {
      labels.add(deps.ontology.shortName(fact.object.value));
      typeSources.push(source);
      continue;
    }
    const category = deps.ontology.categoryOf(fact.predicate);
    if (fact.object.type === "literal" || category === undefined) {
      const field = fieldName(deps.ontology.shortName(fact.predicate));
      (attributes[field] ??= []).push({ value: plainValue(fact.object as Term), source });
      sources.add(source);
      continue;
    }
    const block = blocks.get(category);
    if (!block) continue;
    block.count++;
    block.items.push(related(deps, fact.predicate, "outgoing", fact.object.value, fact.name, fact.types, source));
    block.synthetic ||= synthetic(source);
    sources.add(source);
  }
  for (const group of hood.incoming) {
    const category = deps.ontology.categoryOf(group.predicate);
    const block = category && blocks.get(category);
    if (!block) continue;
    block.count += group.total;
    block.truncated ||= group.total > group.items.length;
    for (const item of group.items) {
      const source = sourceOf(item.graph);
      const entry = related(deps, group.predicate, "incoming", item.uri, item.name, item.types, source);
      const details = eventDetails(deps, item.uri, item.types);
      if (details) entry.details = details;
      block.items.push(entry);
      block.synthetic ||= synthetic(source);
      sources.add(source);
    }
  }

  for (const [category, list] of Object.entries(figures)) {
    const block = blocks.get(category as FocusCategory);
    if (!block || list.length === 0) continue;
    block.figures = list;
    for (const figure of list) {
      block.synthetic ||= synthetic(figure.source);
      sources.add(figure.source);
    }
  }
  const figureBlocks = (["market", "financial_metrics"] as const).map((c) => blocks.get(c)).filter((b): b is CategoryBlock => b !== undefined);
  if (figureBlocks.length > 0 && deps.seriesTables && Object.values(figures).every((list) => list.length === 0)) {
    if (deps.seriesTables(node.id).length === 0) for (const block of figureBlocks) block.figures_note = NO_SERIES_NOTE;
  }
  const entitySynthetic = typeSources.length > 0 && typeSources.every(synthetic);
  return {
    status: "success",
    entity: { uri: node.uri, id: node.id, name: node.name, type: node.type, labels: [...labels], synthetic: entitySynthetic, attributes },
    relationships: Object.fromEntries(blocks),
    sources: [...sources].sort(),
    other_matches: others.slice(0, 10).map((o) => ({ uri: o.uri, name: o.name, type: o.type })),
  };
}

/** Classes of dated events: explore lists each one linked to an entity with its figures (eventDetails). */
const EVENT_CLASSES = new Set(["SecurityIncident"]);
/** At most this many facts are read of an event linked to the entity (an incident has about ten). */
const EVENT_FACTS = 64;

/**
 * The literal facts of a dated event linked to the explored entity (one value a field, the first a
 * source gives), or undefined for any other node: "was it exploited, when, for how much" is then
 * one explore, not one per incident. Its name is the item's own.
 */
function eventDetails(deps: ExploreDeps, uri: string, typeIris: string[]): Record<string, string | number | boolean> | undefined {
  if (!typeIris.some((t) => EVENT_CLASSES.has(deps.ontology.shortName(t)))) return undefined;
  const details: Record<string, string | number | boolean> = {};
  for (const fact of deps.facts.neighbourhood(uri, 0, EVENT_FACTS).outgoing) {
    if (fact.object.type !== "literal" || fact.predicate === SCHEMA_NAME) continue;
    details[fieldName(deps.ontology.shortName(fact.predicate))] ??= plainValue(fact.object as Term);
  }
  return details;
}

function related(
  deps: ExploreDeps,
  predicate: string,
  direction: RelatedEntity["direction"],
  uri: string,
  name: string | undefined,
  typeIris: string[],
  source: string,
): RelatedEntity {
  const labels = typeIris.map((t) => deps.ontology.shortName(t));
  const meta = deps.ontology.predicate(predicate);
  return {
    predicate: meta?.name ?? predicate,
    label: meta?.label ?? predicate,
    direction,
    uri,
    name: name ?? null,
    type: labels.find((l) => NODE_TYPES.has(l)) ?? labels[0] ?? null,
    labels,
    source,
  };
}
