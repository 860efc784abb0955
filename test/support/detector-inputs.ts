/**
 * Hand-made scan inputs for one detector, and what the scan makes of its findings: the table tests
 * of test/signals/detectors/ build a few rows here instead of a demo world.
 *
 * The inputs are the real ones, small: each kind's rows go into a table with the published columns
 * (timeseries/kinds.ts) that the scan's kind views union (createKindViews, as a scan opens them),
 * and graph facts into `entities` and `facts` tables with the snapshot's columns, read by the scan's
 * own loadGraphFacts; all of it in temporary tables of one connection per case to an in-memory
 * DuckDB. The findings are scored, screened and deduplicated as the scan does, and their evidence
 * checked against the type's published schema.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { entityUri, namespaces, typeOfId } from "../../src/entities/vocabulary.ts";
import { SCORE_AT, type Severity } from "../../src/signals/bands.ts";
import type { Detector, Finding, ScanContext, ScoredFinding } from "../../src/signals/detector.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { evidenceSchema } from "../../src/signals/evidence.ts";
import { loadGraphFacts } from "../../src/signals/graph-facts.ts";
import { type Narrator, OfflineNarrator } from "../../src/signals/narratives.ts";
import { createKindViews } from "../../src/signals/scan-inputs.ts";
import { signalKey } from "../../src/signals/identity.ts";
import { scoreFinding } from "../../src/signals/score.ts";
import { openDuck, sqlString } from "../../src/store/duckdb.ts";
import { addDays } from "../../src/time.ts";
import { KINDS, type Kind, tableName } from "../../src/timeseries/kinds.ts";

/** The as-of date every table test scans at unless it says otherwise. */
const AS_OF = "2026-03-31";

/** The day `n` days before the as-of date (negative: after). */
export const day = (n: number, asOf = AS_OF): string => addDays(asOf, -n);

type Value = string | number | boolean | null;
/** One row of a kind: its published columns by name; a column left out is NULL. */
export type Row<K extends Kind> = { [C in (typeof KINDS)[K]["columns"][number]["name"]]?: Value };
export type Series = { [K in Kind]?: Row<K>[] };

/** Rows for the days D-from..D-to (from >= to), one a day, from `row(date, n)` (n: days before D). */
export function daily<K extends Kind>(from: number, to: number, row: (date: string, n: number) => Row<K>, asOf = AS_OF): Row<K>[] {
  const rows: Row<K>[] = [];
  for (let n = from; n >= to; n--) rows.push({ date: day(n, asOf), ...row(day(n, asOf), n) } as Row<K>);
  return rows;
}

export interface Inputs {
  asOf?: string;
  series?: Series;
  /** Entities of the snapshot: id, and optionally name and source (default "test"). */
  entities?: (string | { id: string; name?: string; source?: string })[];
  /** Facts of the snapshot: [subject, predicate, object, source (default "test")]. */
  facts?: [string, string, string, string?][];
  /** Sources that are generated demo data (graph-facts.ts reads their facts between generated entities only). */
  synthetic?: string[];
  /** Findings of the types that ran before (derived types). */
  earlier?: ScoredFinding[];
  narrator?: Narrator;
}

/** A finding as the scan keeps it: scored, screened, with its evidence. */
export interface Signal {
  finding: Finding;
  severity: Severity;
  score: number;
  failed: string[];
  evidence: Record<string, unknown>;
}

/**
 * Runs `detector` over `inputs` and keeps what the scan keeps of its findings (signals/detect.ts):
 * scored and screened (signals/score.ts), those below the first band dropped, one per key (the
 * highest score). Every kept signal's evidence is checked against the type's published schema.
 */
async function runDetector(detector: Detector, inputs: Inputs = {}): Promise<Signal[]> {
  // A connection of its own per case: its temporary tables and views go with it, so nothing of one
  // case reaches another. The instance is the table's (detectorTable), or one for this run alone.
  const duck = shared ?? (await openDuck({ threads: 1 }));
  const c = await duck.connect();
  try {
    const asOf = inputs.asOf ?? AS_OF;
    const published: { name: string; kind: Kind; from: string }[] = [];
    for (const [kind, rows] of Object.entries(inputs.series ?? {}) as [Kind, Row<Kind>[]][]) {
      const name = tableName("test", kind);
      await createTable(c, name, KINDS[kind].columns, rows as Record<string, Value>[]);
      published.push({ name, kind, from: name });
    }
    await createKindViews(c, published);
    await createTable(c, "entities", ENTITY_COLUMNS, (inputs.entities ?? []).map(entityRow));
    await createTable(c, "facts", FACT_COLUMNS, (inputs.facts ?? []).map(factRow(asOf)));
    const graph = await loadGraphFacts(c, inputs.synthetic ?? []);
    const ctx: ScanContext = {
      c,
      asOf,
      day: (n) => `(DATE '${asOf}' - INTERVAL (${n}) DAY)::DATE`,
      graph,
      earlier: inputs.earlier ?? [],
      narrator: inputs.narrator ?? new OfflineNarrator(),
    };
    const byKey = new Map<string, Signal>();
    for (const finding of await detector.detect(ctx)) {
      // Synthetic as far as the finding says (derived types); the tables here are nobody's demo data.
      const scored = scoreFinding(detector, finding, { asOf, ns: namespaces(), sources: ["test"], synthetic: finding.synthetic === true });
      if (!scored) continue;
      evidenceSchema(detector).parse(scored.evidence);
      const key = signalKey(scored.uris, finding.key);
      const previous = byKey.get(key);
      if (!previous || scored.score > previous.score) {
        byKey.set(key, { finding, severity: scored.severity, score: scored.score, failed: scored.failed, evidence: scored.evidence });
      }
    }
    return [...byKey.values()];
  } finally {
    c.closeSync();
    if (duck !== shared) duck.closeSync();
  }
}

/** The in-memory DuckDB instance the cases of one detectorTable share. */
let shared: DuckDBInstance | undefined;

export interface Expected {
  /** The finding's entities, main subject first (in full). */
  entities: string[];
  severity: Severity;
  /** The raw metric, to 2 decimals. */
  value?: number;
  /** Screens the finding fails (default none). */
  failed?: string[];
  /** Fields the evidence holds (a subset; nested objects by toMatchObject). */
  evidence?: Record<string, unknown>;
}

export interface Case {
  name: string;
  inputs: Inputs;
  /** Every signal the scan keeps, by their entities; [] when it keeps none. */
  expect: Expected[];
  /**
   * Where the detector's code disagrees with docs/spec.md §2.4: what the spec says. The case states the
   * spec's outcome and runs as test.failing, so it reports the disagreement until the code follows
   * the spec (then it fails: drop this field).
   */
  disagreement?: string;
}

/**
 * One test per case: the signals the scan keeps, their bands (and a score inside the band), screens
 * and evidence. Signals are compared in the order of their entities, so SQL row order never matters.
 */
export function detectorTable(detector: Detector, cases: Case[]): void {
  describe(detector.slug, () => {
    beforeAll(async () => {
      shared = await openDuck({ threads: 1 });
    });
    afterAll(() => {
      shared?.closeSync();
      shared = undefined;
    });
    for (const c of cases) {
      const run = c.disagreement ? test.failing : test;
      run(c.disagreement ? `${c.name} [disagrees with docs/spec.md §2.4: ${c.disagreement}]` : c.name, async () => {
        const order = (a: { entities: string[] }, b: { entities: string[] }) => a.entities.join().localeCompare(b.entities.join());
        const signals = (await runDetector(detector, c.inputs)).sort((a, b) => order(a.finding, b.finding));
        const expected = [...c.expect].sort(order);
        expect(signals.map((s) => ({ entities: s.finding.entities, severity: s.severity }))).toEqual(expected.map((e) => ({ entities: e.entities, severity: e.severity })));
        for (const [i, want] of expected.entries()) {
          const got = signals[i]!;
          if (want.value !== undefined) expect(got.finding.value).toBeCloseTo(want.value, 2);
          expect(got.score).toBeGreaterThanOrEqual(SCORE_AT[got.severity]);
          if (got.severity === "high") expect(got.score).toBeLessThanOrEqual(100);
          else expect(got.score).toBeLessThan(got.severity === "moderate" ? SCORE_AT.high : SCORE_AT.moderate);
          expect(got.failed).toEqual(want.failed ?? []);
          if (want.evidence) expect(got.evidence).toMatchObject(want.evidence);
        }
      });
    }
  });
}

/**
 * A scored finding of an earlier type, as derived types read it: the type's own category and inputs
 * (so independence is the real one), screened, not synthetic, a score inside its band, unless said.
 */
export function earlier(
  over: Partial<ScoredFinding> & { signalId: string; type: string; entities: string[]; severity: Severity },
): ScoredFinding {
  const type = DETECTORS.find((d) => d.slug === over.type);
  if (!type) throw new Error(`no signal type ${over.type}`);
  return {
    category: type.category,
    inputs: type.inputs,
    score: SCORE_AT[over.severity] + 5,
    summary: `${over.type} on ${over.entities[0]}`,
    synthetic: false,
    screened: true,
    evidence: { severity: over.severity },
    ...over,
  };
}

// The columns of the snapshot's entities.parquet and facts.parquet (snapshot/write.ts).
const ENTITY_COLUMNS = [
  { name: "id", type: "VARCHAR" },
  { name: "uri", type: "VARCHAR" },
  { name: "type", type: "VARCHAR" },
  { name: "labels", type: "VARCHAR[]" },
  { name: "name", type: "VARCHAR" },
  { name: "name_key", type: "VARCHAR" },
  { name: "symbol", type: "VARCHAR" },
  { name: "aliases", type: "VARCHAR[]" },
  { name: "source", type: "VARCHAR" },
  { name: "prominence", type: "DOUBLE" },
] as const;
const FACT_COLUMNS = [
  { name: "subject_id", type: "VARCHAR" },
  { name: "predicate", type: "VARCHAR" },
  { name: "object", type: "VARCHAR" },
  { name: "object_kind", type: "VARCHAR" },
  { name: "datatype", type: "VARCHAR" },
  { name: "source", type: "VARCHAR" },
  { name: "as_of", type: "TIMESTAMP" },
] as const;

function entityRow(e: string | { id: string; name?: string; source?: string }): Record<string, Value | string[]> {
  const { id, name, source } = typeof e === "string" ? { id: e, name: undefined, source: undefined } : e;
  const shown = name ?? id.slice(id.indexOf("/") + 1);
  return { id, uri: entityUri(namespaces(), id), type: typeOfId(id) ?? null, labels: [], name: shown, name_key: shown.toLowerCase(), aliases: [], source: source ?? "test", prominence: 0 };
}

function factRow(asOf: string) {
  return ([subject, predicate, object, source]: [string, string, string, string?]): Record<string, Value> => ({
    subject_id: subject,
    predicate,
    object,
    object_kind: typeOfId(object) ? "entity" : "literal",
    datatype: null,
    source: source ?? "test",
    as_of: `${asOf} 00:00:00`,
  });
}

async function createTable(c: DuckDBConnection, name: string, columns: readonly { name: string; type: string }[], rows: Record<string, Value | string[]>[]): Promise<void> {
  await c.run(`CREATE TEMP TABLE ${name} (${columns.map((col) => `"${col.name}" ${col.type}`).join(", ")})`);
  if (rows.length === 0) return;
  const known = new Set(columns.map((col) => col.name));
  for (const row of rows) for (const key of Object.keys(row)) if (!known.has(key)) throw new Error(`${name} has no column ${key}`);
  const values = rows.map((row) => `(${columns.map((col) => literal(row[col.name], col.type)).join(", ")})`);
  await c.run(`INSERT INTO ${name} VALUES ${values.join(", ")}`);
}

function literal(value: Value | string[] | undefined, type: string): string {
  if (value === undefined || value === null) return `NULL::${type}`;
  if (Array.isArray(value)) return `[${value.map(sqlString).join(", ")}]::${type}`;
  if (typeof value === "number") return Number.isFinite(value) ? `${value}::${type}` : `'${value}'::${type}`;
  return `${sqlString(String(value))}::${type}`;
}
