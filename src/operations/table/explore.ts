import { LRUCache } from "lru-cache";
import {
  type ExploreResult,
  ITEMS_PER_RELATIONSHIP,
  explore as exploreEntity,
  exploreInputSchema,
  exploreResultSchema,
  resolveEntity,
} from "../../graph/explore.ts";
import type { LiveSnapshot } from "../context.ts";
import { READS } from "../effects.ts";
import { defineOperation } from "../operation.ts";

/**
 * Answers per snapshot: an entity's explore answer depends only on the snapshot and the focus, and
 * agents ask about the same entities again and again (a graph round trip and its figures each
 * time otherwise). A new snapshot starts empty; at most 64 MB of answers are kept.
 */
const answers = new WeakMap<LiveSnapshot, LRUCache<string, ExploreResult>>();
const answersOf = (live: LiveSnapshot) => {
  let cache = answers.get(live);
  if (!cache) answers.set(live, (cache = new LRUCache<string, ExploreResult>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (answer) => JSON.stringify(answer).length })));
  return cache;
};

export const explore = defineOperation({
  name: "explore",
  method: "POST",
  path: "/api/explore",
  summary: "Explore one entity's relationships and attributes",
  description:
    "Returns an entity's attributes and its relationships grouped by focus category (investment, team, lineage, " +
    "ecosystem, market, defi, financial_metrics, insider_activity, vesting, github). entity_name is the exact name " +
    "(case-insensitive; find names with /api/search) or the entity's URI; entity_type picks one type when several " +
    `entities share a name. Each category gives the total count and up to ${ITEMS_PER_RELATIONSHIP} items per ` +
    "relationship (of links to the entity, the most prominent first; truncated: true when there are more); every attribute value and link names its source. market and " +
    "financial_metrics also carry the entity's latest figures from the time-series (price, market cap, volume, TVL, fees, " +
    "revenue, ...) with their as-of date, source and table; an entity no time-series has rows for gets figures_note instead " +
    "(nothing is made up: a real entity has figures only once `ckg ingest` has loaded them). Each category block says at its top " +
    "whether any of its links or figures is synthetic demo data (synthetic), and entity.synthetic whether the entity itself is generated. " +
    "Unknown names answer 404 entity_not_found with the closest names.",
  priceUsd: 0.1,
  effects: READS,
  input: exploreInputSchema,
  output: exploreResultSchema,
  needs: ["snapshot"],
  example: { entity_name: "Ethereum", focus: ["ecosystem", "lineage"] },
  prepare(input, { live }) {
    return { input, entity: resolveEntity(live.names, input.entity_name, input.entity_type) };
  },
  async handler({ input, entity }, { services, live }) {
    // The answer names the other entities of the name asked (other_matches): they are part of the key.
    const key = `${entity.node.uri}|${entity.others.map((o) => o.uri).join(",")}|${[...(input.focus ?? [])].sort().join(",")}`;
    const cached = answersOf(live).get(key);
    if (cached) return cached;
    const answer = await exploreEntity(
      {
        facts: live.facts,
        names: live.names,
        ontology: live.ontology,
        ns: live.ns,
        figures: (id) => live.series.latestFigures(id),
        seriesTables: (id) => live.series.tablesOf(id),
        syntheticSources: new Set(live.manifest.sources.filter((s) => s.synthetic).map((s) => s.id)),
      },
      entity,
      input,
    );
    answersOf(live).set(key, answer);
    return answer;
  },
});
