/**
 * @module ingest/base-world
 * The live snapshot read back into a World: the base an ingest adds provider data to. Entities and
 * facts come from the snapshot's Parquet tables (its truth), sources from its manifest, and the
 * identity map (provider key -> entity id) from identity.json when an earlier ingest wrote one, so
 * a thing keeps its id from run to run.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { DuckDBInstance } from "@duckdb/node-api";
import { type EntityRecord, type FactPredicate, World } from "../model/world.ts";
import type { ClassName, NodeType } from "../entities/vocabulary.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { sqlString, withConnection } from "../store/duckdb.ts";

export const IDENTITY_FILE = "identity.json";

export interface BaseWorld {
  world: World;
  identity: Map<string, string>;
}

export async function loadBaseWorld(duck: DuckDBInstance, snapshotDir: string, manifest: SnapshotManifest): Promise<BaseWorld> {
  const world = new World();
  for (const source of manifest.sources) {
    const { graph: _graph, entities: _entities, facts: _facts, as_of: _asOf, ...info } = source;
    world.addSource(info);
  }
  await withConnection(duck, async (c) => {
    const entities = await c.runAndReadAll(
      `SELECT id, type, labels, name, symbol, aliases, source, prominence FROM read_parquet(${sqlString(join(snapshotDir, manifest.files.entities))})`,
    );
    for (const row of entities.getRowObjectsJS() as unknown as (Omit<EntityRecord, "symbol"> & { symbol: string | null })[]) {
      world.restoreEntity({
        id: row.id,
        type: row.type as NodeType,
        labels: row.labels as ClassName[],
        name: row.name,
        symbol: row.symbol ?? undefined,
        aliases: row.aliases,
        source: row.source,
        prominence: row.prominence,
      });
    }
    const file = sqlString(join(snapshotDir, manifest.files.facts));
    // Snapshots before facts carried their own as-of: the source's as-of stands for them.
    const hasAsOf = (await c.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM (DESCRIBE SELECT * FROM read_parquet(${file})) WHERE column_name = 'as_of'`)).getRowObjectsJS()[0]!.n === 1;
    const asOfColumn = hasAsOf ? "strftime(as_of, '%Y-%m-%dT%H:%M:%SZ')" : "NULL";
    const facts = await c.runAndReadAll(`SELECT subject_id, predicate, object, object_kind, source, ${asOfColumn} AS as_of FROM read_parquet(${file})`);
    const columns = facts.getColumnsJS() as (string | null)[][];
    const [subject, predicate, object, kind, source, asOf] = columns as [string[], string[], string[], string[], string[], (string | null)[]];
    const sourceAsOf = new Map(manifest.sources.map((s) => [s.id, s.as_of]));
    for (let i = 0; i < subject.length; i++) {
      const isRelation = kind[i] === "entity" || kind[i] === "class";
      world.restoreFact(subject[i]!, predicate[i] as FactPredicate, object[i]!, isRelation, source[i]!, asOf[i] ?? sourceAsOf.get(source[i]!) ?? manifest.as_of);
    }
  });
  const identityPath = join(snapshotDir, IDENTITY_FILE);
  const identity = new Map<string, string>(
    existsSync(identityPath) ? Object.entries(JSON.parse(readFileSync(identityPath, "utf8")) as Record<string, string>) : [],
  );
  return { world, identity };
}

/**
 * Removes the generated demo data (`--without-demo`): facts of synthetic sources, the entities
 * they made (and facts that point at them), and the sources themselves. Real entities the demo
 * only added facts to stay, with their real facts. Returns how many entities were removed.
 */
export function dropDemoData(world: World): number {
  const synthetic = new Set([...world.sources.values()].filter((s) => s.synthetic).map((s) => s.id));
  if (synthetic.size === 0) return 0;
  const removed = new Set<string>();
  for (const e of world.entities.values()) if (synthetic.has(e.source)) removed.add(e.id);
  const { subject, object, isRelation, source, predicate } = world.facts;
  world.retainFacts((i) => !synthetic.has(source[i]!) && !removed.has(subject[i]!) && !(isRelation[i] && predicate[i] !== "rdf:type" && removed.has(object[i]!)));
  for (const id of removed) world.entities.delete(id);
  for (const id of synthetic) world.sources.delete(id);
  return removed.size;
}
