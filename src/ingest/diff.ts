/**
 * @module ingest/diff
 * The changes feed entries of an ingest: CREATE for every entity the live snapshot did not have,
 * UPDATE (with the fields that changed) for every entity whose facts differ. Facts are compared
 * per entity and field by an order-independent hash of (value, source).
 */
import type { ChangeRecord, World } from "../model/world.ts";
import { fieldName } from "../entities/vocabulary.ts";

export type Fingerprints = Map<string, Map<string, number>>;

function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Per entity (only those `only` accepts), per predicate: the sum of its facts' hashes. */
export function fingerprints(world: World, only?: (id: string) => boolean): Fingerprints {
  const out: Fingerprints = new Map();
  const { subject, predicate, object, source } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    const s = subject[i]!;
    if (only && !only(s)) continue;
    let byPredicate = out.get(s);
    if (!byPredicate) out.set(s, (byPredicate = new Map()));
    const p = predicate[i]!;
    byPredicate.set(p, ((byPredicate.get(p) ?? 0) + hash(`${object[i]}\u0000${source[i]}`)) >>> 0);
  }
  return out;
}

export function diffChanges(before: Fingerprints, hadEntity: (id: string) => boolean, world: World, touched: Set<string>, sourceOf: (id: string) => string, ts: string): ChangeRecord[] {
  const after = fingerprints(world, (id) => touched.has(id));
  const changes: ChangeRecord[] = [];
  for (const id of touched) {
    const now = after.get(id) ?? new Map<string, number>();
    if (!hadEntity(id)) {
      changes.push({ ts, id, operation: "CREATE", fields: [...new Set([...now.keys()].map(fieldName))].sort(), source: sourceOf(id) });
      continue;
    }
    const then = before.get(id) ?? new Map<string, number>();
    const fields = new Set<string>();
    for (const p of new Set([...then.keys(), ...now.keys()])) if (then.get(p) !== now.get(p)) fields.add(fieldName(p));
    if (fields.size > 0) changes.push({ ts, id, operation: "UPDATE", fields: [...fields].sort(), source: sourceOf(id) });
  }
  return changes.sort((a, b) => a.id.localeCompare(b.id));
}
