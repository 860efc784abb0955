/**
 * @module ingest/resolve/cluster
 * Claims grouped into one cluster per real thing: claims that share a key are one (union-find);
 * then, for clusters no key of the world names, claims of one type and name whose keys come from
 * different namespaces.
 */
import type { EntityClaim } from "../records.ts";
import { nameKey, namespaceOf } from "./keys.ts";

/** A claim with the provider (source) it came from, and its keys as resolution compares them. */
export interface Tagged {
  claim: EntityClaim;
  source: string;
  keys: string[];
}

class UnionFind {
  private parent: number[] = [];
  add(): number {
    this.parent.push(this.parent.length);
    return this.parent.length - 1;
  }
  find(x: number): number {
    while (this.parent[x] !== x) x = this.parent[x] = this.parent[this.parent[x]!]!;
    return x;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** The clusters of `items`; `known` tells whether the world already names a key (such clusters are never joined by name). */
export function cluster(items: Tagged[], known: (k: string) => boolean): Tagged[][] {
  const uf = new UnionFind();
  const byKey = new Map<string, number>();
  for (const item of items) {
    const node = uf.add();
    for (const k of item.keys) {
      const seen = byKey.get(k);
      if (seen === undefined) byKey.set(k, node);
      else uf.union(seen, node);
    }
  }
  const groups = new Map<number, Tagged[]>();
  items.forEach((item, i) => {
    const root = uf.find(i);
    const list = groups.get(root);
    if (list) list.push(item);
    else groups.set(root, [item]);
  });
  const found: Tagged[][] = [...groups.values()];
  // Names last: clusters of one type and name whose keys come from different namespaces are one thing.
  const unmatched = new Map<string, { members: Tagged[]; spaces: Set<string> }[]>();
  const result: Tagged[][] = [];
  for (const members of found) {
    if (members.some((m) => m.keys.some(known))) {
      result.push(members);
      continue;
    }
    const k = nameKey(members[0]!.claim.type, members[0]!.claim.name);
    const spaces = new Set(members.flatMap((m) => m.keys.map(namespaceOf)));
    const group = unmatched.get(k) ?? [];
    const into = group.find((g) => ![...spaces].some((s) => g.spaces.has(s)));
    if (into) {
      into.members.push(...members);
      for (const s of spaces) into.spaces.add(s);
    } else {
      group.push({ members, spaces });
      unmatched.set(k, group);
    }
  }
  for (const group of unmatched.values()) for (const g of group) result.push(g.members);
  return result;
}

/** The claim that names a new entity: the most prominent; among equals, the first provider in run order. */
export function primary(members: Tagged[]): Tagged {
  return members.reduce((best, m) => ((m.claim.prominence ?? 0) > (best.claim.prominence ?? 0) ? m : best), members[0]!);
}
