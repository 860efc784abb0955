/**
 * @module search/vector-files
 * A type's files in a snapshot's search/ folder: its entity ids (row order), their float vectors,
 * and the int8 codes the index scans: `<type>.sq8` is the per-dimension scales (dims float32)
 * followed by the codes (rows x dims int8, code = round(value x scale)).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EntityType } from "../entities/vocabulary.ts";

export const idsFile = (type: EntityType) => `${type.toLowerCase()}.ids.json`;
export const vectorsFile = (type: EntityType) => `${type.toLowerCase()}.vectors.f32`;
export const codesFile = (type: EntityType) => `${type.toLowerCase()}.sq8`;

export function readIds(dir: string, type: EntityType): string[] {
  return JSON.parse(readFileSync(join(dir, idsFile(type)), "utf8")) as string[];
}

/** Rows in a type's vector file. */
export function rowCount(dir: string, type: EntityType, dims: number): number {
  return statSync(join(dir, vectorsFile(type))).size / (dims * 4);
}

/**
 * int8 codes with one scale per dimension, so that a dimension whose values stay small still uses
 * the whole int8 range (a single scale would round most of the later LSA dimensions to 0 or 1).
 */
export function quantize(vectors: Float32Array, dims: number): { scales: Float32Array; codes: Int8Array } {
  const max = new Float32Array(dims);
  for (let i = 0; i < vectors.length; i++) {
    const j = i % dims;
    const v = Math.abs(vectors[i]!);
    if (v > max[j]!) max[j] = v;
  }
  const scales = max.map((m) => (m > 0 ? 127 / m : 1));
  const codes = new Int8Array(vectors.length);
  for (let i = 0; i < vectors.length; i++) codes[i] = Math.round(vectors[i]! * scales[i % dims]!);
  return { scales, codes };
}

/**
 * Reads rows [from, to) of a file of `rowBytes`-byte rows after a `headerBytes` header into a
 * buffer of its own (usearch's exactSearch reads a typed array from the start of its buffer,
 * ignoring byteOffset, so a view into a larger buffer would scan the wrong rows).
 */
export function readRows(path: string, headerBytes: number, rowBytes: number, from: number, to: number): ArrayBuffer {
  const out = new ArrayBuffer((to - from) * rowBytes);
  const bytes = new Uint8Array(out);
  const fd = openSync(path, "r");
  try {
    let done = 0;
    while (done < bytes.length) {
      const read = readSync(fd, bytes, done, bytes.length - done, headerBytes + from * rowBytes + done);
      if (read === 0) throw new Error(`${path} ends before row ${to}`);
      done += read;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** The scales of a type's codes, or undefined for a snapshot indexed before codes were saved. */
export function readScales(dir: string, type: EntityType, dims: number): Float32Array | undefined {
  const path = join(dir, codesFile(type));
  if (!existsSync(path)) return undefined;
  return new Float32Array(readRows(path, 0, dims * 4, 0, 1));
}
