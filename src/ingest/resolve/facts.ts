/**
 * @module ingest/resolve/facts
 * Every claim's facts go in under its provider's source: a new entity's record, or an existing
 * one's labels and prominence (the demo's entity becomes the provider's); names, symbols, aliases,
 * attributes, relations to what resolved, sameAs, and the links between resolved things. A claimed
 * entity's earlier facts from the same provider (a previous run) and the demo's facts about it give
 * way to this run's; a fact given twice by one source is kept once.
 */
import type { World } from "../../model/world.ts";
import type { ClassName } from "../../entities/vocabulary.ts";
import { normalizeName } from "../../entities/name-index.ts";
import type { Logger } from "../../log.ts";
import { type Tagged, primary } from "./cluster.ts";
import type { ProviderBatch, ResolveStats } from "./types.ts";

/** A cluster of claims with the entity id it resolved to. */
export interface Cluster {
  members: Tagged[];
  id: string;
  isNew: boolean;
}

/** Writes the clusters' facts and the batches' links; returns the entities that got facts. `idOf` resolves a claim's relation targets. */
export function writeFacts(world: World, clusters: Cluster[], batches: ProviderBatch[], idOf: (k: string) => string | undefined, stats: ResolveStats, log: Logger): Set<string> {
  const asOfBySource = new Map(batches.map((b) => [b.source.id, b.asOf]));
  const previousAsOf = world.factAsOf;
  const firstNew = world.factCount;
  const replaced = new Set<string>();
  const touched = new Set<string>();
  const isSynthetic = (source: string) => world.sources.get(source)?.synthetic === true;
  for (const { members, id, isNew } of clusters) {
    const lead = primary(members);
    const existing = world.entities.get(id);
    const labels = [...new Set<ClassName>([lead.claim.type, ...members.flatMap((m) => m.claim.labels ?? [])])];
    world.factAsOf = asOfBySource.get(lead.source)!;
    if (isNew || !existing) {
      world.addEntity({
        id,
        type: lead.claim.type,
        labels,
        name: lead.claim.name.trim(),
        symbol: lead.claim.symbol,
        aliases: [...new Set(members.flatMap((m) => m.claim.aliases ?? []))],
        source: lead.source,
        prominence: Math.max(0, ...members.map((m) => m.claim.prominence ?? 0)),
      });
    } else {
      if (isSynthetic(existing.source)) {
        // The demo's entity is a real thing after all: its record and facts become the provider's.
        stats.synthetic_replaced++;
        existing.name = lead.claim.name.trim();
        existing.symbol = lead.claim.symbol ?? existing.symbol;
        existing.source = lead.source;
        existing.labels = labels;
        existing.aliases = [];
      } else {
        existing.labels = [...new Set([...existing.labels, ...labels])];
      }
      existing.prominence = Math.max(existing.prominence, ...members.map((m) => m.claim.prominence ?? 0));
    }
    const entity = world.entities.get(id)!;
    touched.add(id);
    for (const m of members) {
      world.factAsOf = asOfBySource.get(m.source)!;
      replaced.add(`${id}\u0000${m.source}`);
      const claim = m.claim;
      for (const label of new Set<ClassName>([claim.type, ...(claim.labels ?? [])])) world.restoreFact(id, "rdf:type", label, true, m.source);
      world.attr(id, "schema:name", claim.name.trim(), m.source);
      if (claim.symbol) world.attr(id, "symbol", claim.symbol, m.source);
      for (const alias of claim.aliases ?? []) world.attr(id, "alias", alias, m.source);
      if (normalizeName(claim.name) !== normalizeName(entity.name) && !entity.aliases.includes(claim.name.trim())) entity.aliases.push(claim.name.trim());
      for (const [attribute, value] of claim.attributes ?? []) {
        try {
          world.attr(id, attribute, value, m.source);
        } catch (error) {
          log.debug({ entity: id, attribute, err: (error as Error).message }, "attribute skipped");
        }
      }
      for (const [relation, target] of claim.relations ?? []) {
        const targetId = idOf(target);
        if (targetId && targetId !== id) world.rel(id, relation, targetId, m.source);
        else if (!targetId) stats.relations_unresolved++;
      }
      for (const iri of claim.sameAs ?? []) world.sameAs(id, iri, m.source);
    }
  }
  for (const batch of batches) {
    world.factAsOf = batch.asOf;
    for (const link of batch.output.links) {
      const s = idOf(link.subject);
      const o = idOf(link.object);
      if (!s || !o) {
        stats.relations_unresolved++;
        continue;
      }
      world.rel(s, link.relation, o, batch.source.id);
      touched.add(s);
    }
  }
  world.factAsOf = previousAsOf;
  const { subject, source } = world.facts;
  world.retainFacts((i) => {
    if (i >= firstNew) return true;
    const s = subject[i]!;
    if (!touched.has(s)) return true;
    if (replaced.has(`${s}\u0000${source[i]}`)) return false;
    return !isSynthetic(source[i]!);
  });
  dedupeFacts(world, touched);
  return touched;
}

/** The same fact from the same source twice (two records of one provider about one thing) is kept once. */
function dedupeFacts(world: World, touched: Set<string>): void {
  const { subject, predicate, object, source } = world.facts;
  const seen = new Set<string>();
  world.retainFacts((i) => {
    if (!touched.has(subject[i]!)) return true;
    const k = `${subject[i]}\u0000${predicate[i]}\u0000${object[i]}\u0000${source[i]}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
