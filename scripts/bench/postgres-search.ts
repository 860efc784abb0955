/**
 * The search a PostgreSQL user would build on the same data, for scripts/bench/search.ts: names,
 * symbols and aliases in a table with a pg_trgm GIN index (exact match on the normalised text,
 * then trigram similarity), and the same vectors in pgvector with an HNSW index per entity type
 * (cosine). Loaded from a ckg snapshot with COPY through psql.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { ENTITY_TYPES, type EntityType } from "../../src/entities/vocabulary.ts";
import { readFloats } from "../../src/search/lsa.ts";
import { normalizeName } from "../../src/entities/name-index.ts";
import { readIds, vectorsFile } from "../../src/search/vector-files.ts";
import { sqlString, withConnection } from "../../src/store/duckdb.ts";
import type { DuckDBInstance } from "@duckdb/node-api";

export const HNSW = { m: 16, efConstruction: 64, efSearch: 100 };

export interface PgLoad {
  rows: { names: number; vectors: number };
  loadMs: number;
  trigramIndexMs: number;
  vectorIndexMs: number;
  /** False when the server has no pgvector: the bench then compares names only. */
  vectors: boolean;
}

const tsv = (value: string) => value.replace(/[\t\n\r\\]/g, " ");

function psql(url: string, command: string): void {
  const result = Bun.spawnSync(["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c", command], { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`psql: ${result.stderr.toString()}`);
}

/** Loads a snapshot's names and vectors into PostgreSQL and builds the indexes. */
export async function loadSearchTables(url: string, duck: DuckDBInstance, snapshotDir: string, searchDir: string, dims: number): Promise<PgLoad> {
  const db = new SQL({ url, max: 1 });
  await db.unsafe("CREATE EXTENSION IF NOT EXISTS pg_trgm");
  const available = await db.unsafe("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  const vectors = available.length > 0;
  if (vectors) await db.unsafe("CREATE EXTENSION IF NOT EXISTS vector");
  await db.unsafe(`DROP TABLE IF EXISTS entity_name, entity_vector, entity`);
  await db.unsafe(`CREATE TABLE entity (id text PRIMARY KEY, uri text NOT NULL, name text NOT NULL, type text NOT NULL)`);
  await db.unsafe(`CREATE TABLE entity_name (id text NOT NULL, type text NOT NULL, norm text NOT NULL, lower text NOT NULL)`);
  if (vectors) await db.unsafe(`CREATE TABLE entity_vector (id text NOT NULL, type text NOT NULL, embedding vector(${dims}) NOT NULL)`);

  const dir = mkdtempSync(join(tmpdir(), "ckg-pg-load-"));
  const started = performance.now();
  try {
    const columns = await withConnection(duck, async (c) => {
      const reader = await c.runAndReadAll(`SELECT id, uri, name, type, symbol, aliases FROM read_parquet(${sqlString(join(snapshotDir, "entities.parquet"))})
        WHERE type IN (${ENTITY_TYPES.map(sqlString).join(", ")})`);
      return reader.getColumnsObjectJS() as { id: string[]; uri: string[]; name: string[]; type: string[]; symbol: (string | null)[]; aliases: (string[] | null)[] };
    });
    const entities: string[] = [];
    const names: string[] = [];
    for (let i = 0; i < columns.id.length; i++) {
      entities.push([columns.id[i], columns.uri[i], columns.name[i], columns.type[i]].map((v) => tsv(String(v))).join("\t"));
      for (const text of new Set([columns.name[i]!, columns.symbol[i], ...(columns.aliases[i] ?? [])])) {
        if (text) names.push([columns.id[i]!, columns.type[i]!, normalizeName(text), text.toLowerCase()].map(tsv).join("\t"));
      }
    }
    writeFileSync(join(dir, "entity.tsv"), `${entities.join("\n")}\n`);
    writeFileSync(join(dir, "name.tsv"), `${names.join("\n")}\n`);
    psql(url, `\\copy entity FROM '${join(dir, "entity.tsv")}'`);
    psql(url, `\\copy entity_name FROM '${join(dir, "name.tsv")}'`);
    let vectorRows = 0;
    if (vectors) {
      for (const type of ENTITY_TYPES) {
        const ids = readIds(searchDir, type);
        const floats = readFloats(join(searchDir, vectorsFile(type)));
        const lines: string[] = [];
        for (let row = 0; row < ids.length; row++) lines.push(`${ids[row]}\t${type}\t[${Array.from(floats.subarray(row * dims, (row + 1) * dims)).join(",")}]`);
        writeFileSync(join(dir, `${type}.tsv`), `${lines.join("\n")}\n`);
        psql(url, `\\copy entity_vector FROM '${join(dir, `${type}.tsv`)}'`);
        vectorRows += ids.length;
      }
    }
    const loadMs = performance.now() - started;
    let t = performance.now();
    await db.unsafe("CREATE INDEX entity_name_norm ON entity_name (norm)");
    await db.unsafe("CREATE INDEX entity_name_trgm ON entity_name USING gin (lower gin_trgm_ops)");
    const trigramIndexMs = performance.now() - t;
    t = performance.now();
    if (vectors) {
      await db.unsafe("SET maintenance_work_mem = '2GB'");
      await db.unsafe("SET max_parallel_maintenance_workers = 1");
      // One index per type: the type filter applies before the top-k cut, as in ckg.
      for (const type of ENTITY_TYPES) {
        await db.unsafe(
          `CREATE INDEX entity_vector_${type.toLowerCase()} ON entity_vector USING hnsw (embedding vector_cosine_ops) WITH (m = ${HNSW.m}, ef_construction = ${HNSW.efConstruction}) WHERE type = '${type}'`,
        );
      }
    }
    const vectorIndexMs = performance.now() - t;
    await db.unsafe("ANALYZE");
    return { rows: { names: names.length, vectors: vectorRows }, loadMs, trigramIndexMs, vectorIndexMs, vectors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await db.close();
  }
}

export interface PgResult {
  uri: string;
  similarity: number;
}

/**
 * One search the way a PostgreSQL user would write it: exact names first, then pg_trgm
 * similarity (the `%` operator on the GIN index), then, with a query vector, the pgvector
 * neighbours of each requested type; deduplicated, cut at limit.
 */
export async function pgSearch(db: SQL, input: { query: string; limit: number; entity_types?: readonly EntityType[]; vector?: Float32Array }): Promise<PgResult[]> {
  const types = input.entity_types ?? ENTITY_TYPES;
  const typeList = types.map((t) => `'${t}'`).join(", ");
  const vectorParts = input.vector
    ? types.map(
        (type) =>
          `(SELECT v.id, 1 - (v.embedding <=> $4::vector) AS sim, 2 AS tier FROM entity_vector v WHERE v.type = '${type}' ORDER BY v.embedding <=> $4::vector LIMIT $3)`,
      )
    : [];
  const sql = `
    SELECT e.uri, best.sim FROM (
      SELECT id, max(sim) AS sim, min(tier) AS tier FROM (
        (SELECT n.id, 1.0::float8 AS sim, 0 AS tier FROM entity_name n WHERE n.norm = $1 AND n.type IN (${typeList}))
        UNION ALL
        (SELECT n.id, similarity(n.lower, $2) AS sim, 1 AS tier FROM entity_name n WHERE n.lower % $2 AND n.type IN (${typeList})
         ORDER BY similarity(n.lower, $2) DESC LIMIT $3)
        ${vectorParts.map((part) => `UNION ALL ${part}`).join("\n")}
      ) AS hits GROUP BY id
    ) AS best JOIN entity e ON e.id = best.id
    ORDER BY best.tier, best.sim DESC LIMIT $3`;
  const params: unknown[] = [normalizeName(input.query), input.query.toLowerCase(), input.limit];
  if (input.vector) params.push(`[${Array.from(input.vector).join(",")}]`);
  const rows = (await db.unsafe(sql, params)) as { uri: string; sim: number }[];
  return rows.map((r) => ({ uri: r.uri, similarity: Number(r.sim) }));
}
