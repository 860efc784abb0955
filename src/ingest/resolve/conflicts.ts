/**
 * @module ingest/resolve/conflicts
 * Values the sources disagree on: an attribute a thing has one value of, given differently by two
 * sources about an entity this run touched. Both are kept (each in its source's graph) and listed.
 */
import type { SAME_AS, World } from "../../model/world.ts";
import { type Attribute, fieldName } from "../../entities/vocabulary.ts";
import type { Conflict } from "./types.ts";

/** Attributes a thing has one value of: different values from different sources are a conflict. */
const SINGLE_VALUED = new Set<string>(["symbol", "decimals", "chainId", "chainKey", "layer", "pegCurrency", "foundedYear", "license", "programmingLanguage"]);

export function findConflicts(world: World, touched: Set<string>): Conflict[] {
  const values = new Map<string, Map<string, Set<string>>>();
  const { subject, predicate, object, source } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    const p = predicate[i]!;
    if (!SINGLE_VALUED.has(p) || !touched.has(subject[i]!)) continue;
    const k = `${subject[i]}\u0000${p}`;
    let byValue = values.get(k);
    if (!byValue) values.set(k, (byValue = new Map()));
    const v = p === "symbol" ? object[i]!.toUpperCase() : object[i]!;
    let sources = byValue.get(v);
    if (!sources) byValue.set(v, (sources = new Set()));
    sources.add(source[i]!);
  }
  const conflicts: Conflict[] = [];
  for (const [k, byValue] of values) {
    if (byValue.size < 2) continue;
    const [entity, p] = k.split("\u0000") as [string, Attribute | typeof SAME_AS];
    conflicts.push({
      entity_id: entity,
      field: fieldName(p),
      values: [...byValue].flatMap(([value, sources]) => [...sources].map((s) => ({ value, source: s }))),
    });
  }
  return conflicts;
}
