/**
 * @module ingest/resolve
 * Entity resolution: provider claims become facts of one entity per real thing.
 *
 * Claims that share a key are one thing (union-find). Chains resolve first, so a token address
 * named by any chain key (`Chain:coingecko:ethereum`, `Chain:defillama:Ethereum`) becomes one
 * canonical address. A cluster then takes the id of the entity its keys already name (the identity
 * map of earlier ingests, chain ids, contract addresses); names are the last resort, within a type,
 * and only when they point at one entity. Every claim's facts go in under its provider's source,
 * so values the providers disagree on are all kept (in their own named graphs) and listed as
 * conflicts; nothing is overwritten. Facts of the generated demo about a real thing are dropped: the
 * real data replaces them.
 */
import type { Logger } from "../../log.ts";
import type { BaseWorld } from "../base-world.ts";
import { type SeriesRow, SERIES_KEY_COLUMNS } from "../records.ts";
import { type Tagged, cluster, primary } from "./cluster.ts";
import { findConflicts } from "./conflicts.ts";
import { type Cluster, writeFacts } from "./facts.ts";
import { matchExisting } from "./match.ts";
import type { ProviderBatch, Resolution, ResolveStats } from "./types.ts";
import { indexWorld, keyLookup } from "./world-index.ts";

export function resolve(base: BaseWorld, batches: ProviderBatch[], log: Logger): Resolution {
  const { world } = base;
  const stats: ResolveStats = { claims: 0, entities_created: 0, entities_matched: 0, matched_by_name: 0, matched_by_symbol: 0, matched_native_coins: 0, synthetic_replaced: 0, relations_unresolved: 0, rows_unresolved: 0, chains_by_former_name: 0 };
  const index = indexWorld(base);
  const { keyToId } = index;
  const { canon, idOf } = keyLookup(index, stats);

  const tagged: Tagged[] = batches.flatMap((b) => b.output.claims.map((claim) => ({ claim, source: b.source.id, keys: claim.keys })));
  stats.claims = tagged.length;
  const taken = new Set<string>();
  const clusters: Cluster[] = [];

  const assign = (members: Tagged[]) => {
    const type = members[0]!.claim.type;
    let id = matchExisting(members, world, index, taken, stats);
    const isNew = !id || !world.entities.has(id);
    // Two new clusters of one name ("Aave Strategic", two rounds) get two ids: those allocated so far are taken.
    if (!id || !world.entities.has(id)) id = id ?? world.allocateId(type, primary(members).claim.name, taken);
    taken.add(id);
    for (const m of members) for (const k of m.keys) keyToId.set(k, id);
    clusters.push({ members, id, isNew });
    if (isNew) stats.entities_created++;
    else stats.entities_matched++;
  };
  const known = (k: string) => keyToId.has(k);

  // 1. Chains, so addresses can be made canonical.
  for (const members of cluster(tagged.filter((t) => t.claim.type === "Chain"), known)) assign(members);
  // 2. Everything else, on canonical keys.
  const rest = tagged
    .filter((t) => t.claim.type !== "Chain")
    .map((t) => ({ ...t, keys: t.keys.map(canon).filter((k): k is string => k !== undefined) }))
    .filter((t) => t.keys.length > 0);
  for (const members of cluster(rest, known)) assign(members);
  // 3. Facts.
  const touched = writeFacts(world, clusters, batches, idOf, stats, log);

  return {
    idOf,
    touched,
    identity: keyToId,
    conflicts: findConflicts(world, touched),
    stats,
    resolveRows(rows) {
      const out: SeriesRow[] = [];
      for (const row of rows) {
        const copy: SeriesRow = { ...row };
        let ok = true;
        for (const column of SERIES_KEY_COLUMNS) {
          const value = row[column];
          if (typeof value !== "string") continue;
          const id = idOf(value) ?? (world.entities.has(value) ? value : undefined);
          if (column === "entity_id" && !id) ok = false;
          copy[column] = id ?? null;
        }
        if (ok) out.push(copy);
        else stats.rows_unresolved++;
      }
      return out;
    },
  };
}
