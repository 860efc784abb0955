/**
 * @module snapshot/duplicates
 * Entities of a snapshot that look like one real thing left as two: `ckg stats --duplicates` and
 * the entity-resolution bench read it. Evidence, strongest first:
 * - the same contract address (chain and address) on two entities;
 * - the same chain key (`eip155:10`, `cosmos:osmosis-1`) on two chains;
 * - the same external page (`owl:sameAs` IRI: a CoinGecko coin, a DefiLlama protocol) on two entities;
 * - the same type, normalized name and symbol (people and pools excepted: their names repeat), for
 *   tokens only when no chain holds a different contract of each (two contracts on one chain, an
 *   old and a new FET, are two things by construction).
 * A group whose members are already tied to each other (`sameNetworkAs` for two faces of one
 * network, `bridgedFrom` for a bridged copy, `successorOf`) is not a duplicate: the graph says how
 * they relate. Only groups with a real (non-synthetic) member are reported; the generated demo's
 * own name collisions are its business.
 */
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { normalizeName } from "../entities/name-index.ts";
import { sqlString, withConnection } from "../store/duckdb.ts";
import type { SnapshotManifest } from "../store/manifest.ts";

export type DuplicateReason = "contract_address" | "chain_key" | "external_id" | "name_and_symbol";

export interface DuplicateMember {
  id: string;
  type: string;
  name: string;
  symbol: string | null;
  source: string;
}

export interface DuplicateGroup {
  reason: DuplicateReason;
  /** The value the members share (an address, chain key, IRI, or `name|symbol`). */
  value: string;
  members: DuplicateMember[];
}

export interface DuplicateReport {
  groups: DuplicateGroup[];
  by_reason: Record<DuplicateReason, number>;
  /** Entities in at least one group. */
  entities: number;
}

/** Relations that say how two same-looking entities relate, so they are not left as duplicates. */
const TIES = ["sameNetworkAs", "bridgedFrom", "successorOf"];
/** Types whose names legitimately repeat (two people called Alex Chen; pools named by their pair). */
const NAME_RULE_SKIPS = new Set(["Person", "Pool", "FundingRound", "GovernanceProposal", "VestingSchedule", "Repository", "LendingMarket"]);

export async function findDuplicates(duck: DuckDBInstance, snapshotDir: string, manifest: SnapshotManifest): Promise<DuplicateReport> {
  const syntheticSources = new Set(manifest.sources.filter((s) => s.synthetic).map((s) => s.id));
  const entitiesFile = sqlString(join(snapshotDir, manifest.files.entities));
  const factsFile = sqlString(join(snapshotDir, manifest.files.facts));
  return withConnection(duck, async (c) => {
    const entityRows = (await c.runAndReadAll(`SELECT id, type, name, symbol, source FROM read_parquet(${entitiesFile})`)).getRowObjectsJS() as unknown as DuplicateMember[];
    const entities = new Map(entityRows.map((e) => [e.id, e]));
    // Shared keys, grouped in DuckDB: only values held by two or more entities come back.
    const shared = (await c.runAndReadAll(
      `SELECT CASE predicate WHEN 'contractAddress' THEN 'contract_address' WHEN 'chainKey' THEN 'chain_key' ELSE 'external_id' END AS reason,
              key AS value, list(DISTINCT subject_id ORDER BY subject_id) AS ids
         FROM (SELECT subject_id, predicate, CASE WHEN predicate = 'contractAddress' THEN lower(object) ELSE object END AS key
                 FROM read_parquet(${factsFile})
                WHERE predicate IN ('contractAddress', 'chainKey', 'owl:sameAs'))
        GROUP BY ALL HAVING count(DISTINCT subject_id) > 1`,
    )).getRowObjectsJS() as unknown as { reason: DuplicateReason; value: string; ids: string[] }[];
    const ties = (await c.runAndReadAll(
      `SELECT subject_id AS a, object AS b FROM read_parquet(${factsFile})
        WHERE predicate IN (${TIES.map(sqlString).join(", ")}) AND object_kind = 'entity'`,
    )).getRowObjectsJS() as unknown as { a: string; b: string }[];

    const tied = new TieSets();
    for (const { a, b } of ties) tied.union(a, b);

    const candidates: { reason: DuplicateReason; value: string; ids: string[] }[] = [...shared];
    const contracts = new Map<string, Map<string, string>>();
    const addresses = (await c.runAndReadAll(`SELECT subject_id, lower(object) AS o FROM read_parquet(${factsFile}) WHERE predicate = 'contractAddress'`)).getRowObjectsJS() as unknown as { subject_id: string; o: string }[];
    for (const { subject_id, o } of addresses) {
      const cut = o.lastIndexOf(":");
      const held = contracts.get(subject_id) ?? new Map<string, string>();
      held.set(o.slice(0, cut), o.slice(cut + 1));
      contracts.set(subject_id, held);
    }
    /** Two tokens could be one when no chain holds a different contract of each. */
    const couldBeOne = (a: string, b: string) => {
      const ca = contracts.get(a);
      const cb = contracts.get(b);
      if (!ca || !cb) return true;
      for (const [chain, address] of ca) if (cb.has(chain) && cb.get(chain) !== address) return false;
      return true;
    };
    const byName = new Map<string, string[]>();
    for (const e of entityRows) {
      if (NAME_RULE_SKIPS.has(e.type) || !e.name) continue;
      const k = `${e.type}|${normalizeName(e.name)}|${(e.symbol ?? "").toLowerCase()}`;
      const list = byName.get(k);
      if (list) list.push(e.id);
      else byName.set(k, [e.id]);
    }
    for (const [k, ids] of byName) {
      if (ids.length < 2) continue;
      const open = ids.filter((a) => ids.some((b) => a !== b && couldBeOne(a, b)));
      if (open.length > 1) candidates.push({ reason: "name_and_symbol", value: k.slice(k.indexOf("|") + 1), ids: open });
    }

    const groups: DuplicateGroup[] = [];
    for (const { reason, value, ids } of candidates) {
      const members = ids.map((id) => entities.get(id)).filter((e): e is DuplicateMember => e !== undefined);
      if (members.length < 2 || members.every((m) => syntheticSources.has(m.source))) continue;
      if (members.every((m) => tied.same(m.id, members[0]!.id))) continue;
      groups.push({ reason, value, members });
    }
    const order: DuplicateReason[] = ["contract_address", "chain_key", "external_id", "name_and_symbol"];
    groups.sort((a, b) => order.indexOf(a.reason) - order.indexOf(b.reason) || a.value.localeCompare(b.value));
    const by_reason = Object.fromEntries(order.map((r) => [r, groups.filter((g) => g.reason === r).length])) as Record<DuplicateReason, number>;
    return { groups, by_reason, entities: new Set(groups.flatMap((g) => g.members.map((m) => m.id))).size };
  });
}

/** Union-find over entity ids joined by tie relations. */
class TieSets {
  private parent = new Map<string, string>();
  private find(x: string): string {
    let root = x;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    this.parent.set(x, root);
    return root;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra, rb);
  }
  same(a: string, b: string): boolean {
    return this.find(a) === this.find(b);
  }
}
