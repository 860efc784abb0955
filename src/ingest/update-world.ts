/**
 * @module ingest/update-world
 * An ingest's stages on the world (ingest/ingest.ts lists them all): `base`, the live snapshot read
 * back into a World (ingest/base-world.ts); `resolve`, the providers' claims onto its entities, one
 * entity per real thing (ingest/resolve/); `diff`, the changes that makes, recorded as the changes
 * feed's records (ingest/diff.ts), and the world checked whole.
 */
import type { DuckDBInstance } from "@duckdb/node-api";
import type { StageTools } from "../pipeline.ts";
import { snapshotPath } from "../store/data-dir.ts";
import { DUCK_RESOURCES, openDuck } from "../store/duckdb.ts";
import { type SnapshotManifest, readManifest } from "../store/manifest.ts";
import { isoSeconds } from "../time.ts";
import { type BaseWorld, dropDemoData, loadBaseWorld } from "./base-world.ts";
import { type Fingerprints, diffChanges, fingerprints } from "./diff.ts";
import { type IngestRun, IngestError } from "./options.ts";
import type { ProviderRead, ProviderReport } from "./read-providers.ts";
import { resolve } from "./resolve/index.ts";
import type { Resolution } from "./resolve/types.ts";
import { neighbourSignatures } from "./search-update.ts";

export interface Base {
  /** The run's DuckDB instance (closed when the run ends): reads the base's tables, writes the new ones. */
  duck: DuckDBInstance;
  baseDir: string;
  baseManifest: SnapshotManifest;
  base: BaseWorld;
  /** What each entity said before this run, to find what it changed. */
  before: Fingerprints;
  hadEntity: Set<string>;
  /** What each entity's search document showed of its neighbours before this run. */
  shownToNeighbours: Map<string, string>;
  /** Entities of the demo data left out (`withoutDemo`). */
  demoRemoved: number;
}

/** Stage `base`: the live snapshot as a World, with what it said before this run. */
export async function readBase({ options, baseId }: IngestRun, tools: StageTools): Promise<Base> {
  const baseDir = snapshotPath(options.dir, baseId);
  const baseManifest = readManifest(baseDir);
  const duck = await openDuck({ memoryLimit: DUCK_RESOURCES.batchMemory });
  tools.defer(() => duck.closeSync());
  const base = await loadBaseWorld(duck, baseDir, baseManifest);
  const { world } = base;
  const before = fingerprints(world);
  const hadEntity = new Set(world.entities.keys());
  const shownToNeighbours = neighbourSignatures(world);
  const demoRemoved = options.withoutDemo ? dropDemoData(world) : 0;
  if (demoRemoved > 0) options.log.info({ entities: demoRemoved }, "demo data left out");
  return { duck, baseDir, baseManifest, base, before, hadEntity, shownToNeighbours, demoRemoved };
}

/** Stage `resolve`: every provider's claims onto the world's entities, each fact as of when its provider was read. */
export function resolveClaims({ options, base, outputs, reports }: IngestRun & Base & { outputs: ProviderRead[]; reports: ProviderReport[] }): { resolution: Resolution } {
  const { world } = base;
  for (const { source: info } of outputs) if (!world.sources.has(info.id)) world.addSource(info);
  const asOfById = new Map(reports.map((r) => [r.id, r.as_of]));
  return { resolution: resolve(base, outputs.map((o) => ({ ...o, asOf: asOfById.get(o.output.provider)! })), options.log) };
}

/** Stage `diff`: the changes this run made, each credited to the first provider that claimed its entity; IngestError when the world no longer holds together. */
export function recordChanges({ base, outputs, resolution, before, hadEntity }: Base & { outputs: ProviderRead[]; resolution: Resolution }): object {
  const { world } = base;
  const firstSource = new Map<string, string>();
  for (const { output, source: info } of outputs) {
    for (const claim of output.claims) {
      const id = resolution.idOf(claim.keys[0]!);
      if (id && !firstSource.has(id)) firstSource.set(id, info.id);
    }
  }
  const sourceOf = (id: string) => firstSource.get(id) ?? outputs[0]?.source.id ?? "ckg";
  world.changes.push(...diffChanges(before, (id) => hadEntity.has(id), world, resolution.touched, sourceOf, isoSeconds()));
  const problems = world.validate();
  if (problems.length > 0) throw new IngestError(`the resolved world is inconsistent:\n${problems.join("\n")}`);
  return {};
}
