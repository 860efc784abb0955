/**
 * @module search/vector-rows
 * The link between a snapshot's vector rows and its name index, both ways, and exact scores of
 * chosen rows in this thread. The scan workers find neighbours among all rows; a scoped question
 * ("native coin of ethereum", "korean exchange") also needs the few entities in its scope scored
 * even when the scan did not reach them, and a few hundred dot products need no worker. The saved
 * float vectors are memory-mapped: pages are read only for the rows scored.
 */
import { join } from "node:path";
import { ENTITY_TYPES, type EntityType } from "../entities/vocabulary.ts";
import type { NameIndex } from "../entities/name-index.ts";
import { exactDot } from "./exact-dot.ts";
import { readIds, vectorsFile } from "./vector-files.ts";

export class VectorRows {
  private readonly floats = new Map<EntityType, Float32Array>();

  private constructor(
    private readonly dir: string,
    private readonly dims: number,
    /** Per type: row -> position in the name index (-1: not there). */
    private readonly positions: ReadonlyMap<EntityType, Int32Array>,
    /** Position in the name index -> its row in its type's vectors (-1: none). */
    private readonly rows: Int32Array,
  ) {}

  static open(searchDir: string, dims: number, names: NameIndex): VectorRows {
    const rows = new Int32Array(names.size).fill(-1);
    const positions = new Map<EntityType, Int32Array>();
    for (const type of ENTITY_TYPES) {
      const byRow = Int32Array.from(readIds(searchDir, type), (id) => names.positionOf(id) ?? -1);
      byRow.forEach((position, row) => position >= 0 && (rows[position] = row));
      positions.set(type, byRow);
    }
    return new VectorRows(searchDir, dims, positions, rows);
  }

  /** The name-index position of a type's vector row, or -1. */
  positionOf(type: EntityType, row: number): number {
    return this.positions.get(type)?.[row] ?? -1;
  }

  /** Cosine of a unit-length query to the entity at a name-index position, or undefined when it has no vector. */
  cosine(unitQuery: Float32Array, position: number, type: EntityType): number | undefined {
    const row = this.rows[position] ?? -1;
    if (row < 0) return undefined;
    return exactDot(unitQuery, this.floatsOf(type), row * this.dims, this.dims);
  }

  private floatsOf(type: EntityType): Float32Array {
    let floats = this.floats.get(type);
    if (!floats) {
      const mapped = Bun.mmap(join(this.dir, vectorsFile(type)));
      floats = new Float32Array(mapped.buffer, mapped.byteOffset, mapped.byteLength / 4);
      this.floats.set(type, floats);
    }
    return floats;
  }
}
