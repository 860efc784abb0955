/**
 * @module signals/detector
 * What a detector is: one signal type of docs/spec.md §2.4 with its category, inputs, raw metric, bands,
 * evidence schema and screens, and a `detect` that turns the scan's inputs into findings. Scoring,
 * screening, ids and qualification are the scan's (signals/scan.ts), the same for every type.
 */
import type { DuckDBConnection } from "@duckdb/node-api";
import type { z } from "zod";
import type { Kind } from "../timeseries/kinds.ts";
import type { Bands, Severity } from "./bands.ts";
import type { DataPoint } from "./kit.ts";
import type { GraphFacts } from "./graph-facts.ts";
import type { Narrator } from "./narratives.ts";

export const CATEGORIES = [
  "Smart Money & Insider Activity",
  "Investment Graph Intelligence",
  "DeFi Risk & Opportunity",
  "Protocol Fundamentals",
  "Governance Risk",
  "Token Lifecycle Risk",
  "Cross-Domain Convergence",
] as const;
export type Category = (typeof CATEGORIES)[number];

/** An input a detector reads: a kind of time-series table, or a relation of the graph. */
export type Input = `ts:${Kind}` | `graph:${string}` | "signals";

export interface Finding {
  /** Graph ids (`pool/x`) or outside identifiers (a CAIP-10 wallet); the first is the main subject. */
  entities: string[];
  /** Identity of the signal when its entity list may vary from scan to scan (a sector, a community). */
  key?: string;
  /** The raw metric, in the unit of the type's bands (or of `bands` below). */
  value: number;
  /** A second metric with its own bands (developer-network's bus factor); default: the type's. */
  metric?: { name: string; unit: string; bands: Bands };
  /** Highest band allowed when a secondary condition fails, with why ("no strong 90-day trend"). */
  cap?: { severity: Severity; reason: string };
  /** Lowest band when a secondary condition alone makes it serious ("runway under 90 days"). */
  floor?: { severity: Severity; reason: string };
  window: { from: string; to: string };
  dataPoints: DataPoint[];
  /** Latest date of the inputs about this finding (freshness screen); null for scheduled or graph facts. */
  lastDataDate: string | null;
  /** The figure the size floor applies to (TVL, circulating supply, market cap), USD. */
  size?: number;
  /** One sentence with the numbers, for people and narratives (the scan marks it when synthetic). */
  summary: string;
  /** Derived types: true when a signal it links is synthetic. Others are judged by their data points and entities (scan.ts). */
  synthetic?: boolean;
  /** Type-specific evidence fields (validated by the type's evidence schema). */
  details: Record<string, unknown>;
}

export interface Screens {
  /** Inputs older than this many days before the scan's as-of date fail the freshness screen. */
  maxAgeDays: number | null;
  /** Size floor, USD, of `Finding.size`. */
  sizeFloor?: { what: string; minUsd: number };
}

/** A scored finding of another type, as derived types (convergence, narratives) see it. */
export interface ScoredFinding {
  signalId: string;
  type: string;
  category: Category;
  inputs: Input[];
  entities: string[];
  score: number;
  severity: Severity;
  /** The finding's sentence, without the synthetic mark. */
  summary: string;
  /** Any of its sources is generated demo data. */
  synthetic: boolean;
  /** Passed its screens in this scan. */
  screened: boolean;
  evidence: Record<string, unknown>;
}

export interface ScanContext {
  /** A connection where each kind of series is a view (`pool`, `lending`, ...) over every source's table of that kind. */
  c: DuckDBConnection;
  /** The as-of date of the scan, YYYY-MM-DD: the last day of data it may read. */
  asOf: string;
  /** SQL for the date `n` days before the as-of date (negative: after). */
  day(n: number): string;
  graph: GraphFacts;
  /** Findings of the types that ran before (derived types only). */
  earlier: ScoredFinding[];
  /** Writes narratives (offline, or an OpenAI-compatible endpoint). */
  narrator: Narrator;
}

/**
 * What feeds a type on real data: "yes" when free provider requests feed it, "partial" when they
 * feed part of it or a proxy of it (the note says which), "synthetic only" when no free source
 * does (the note says why); only the demo world's generated series make it fire then.
 */
export interface RealData {
  status: "yes" | "partial" | "synthetic only";
  /** The provider requests that feed it (signals/sources.ts). */
  sources: readonly string[];
  note?: string;
}

export interface Detector<D extends z.ZodRawShape = z.ZodRawShape> {
  slug: string;
  category: Category;
  /** What it detects and what a high score means (docs/spec.md §2.4), for the catalog. */
  description: string;
  inputs: Input[];
  metric: { name: string; description: string };
  bands: Bands;
  /** Fields of `evidence` beyond the common ones. */
  details: D;
  screens: Screens;
  realData: RealData;
  /** Built from other types' findings (convergence, narratives): runs last, never corroborates. */
  derived?: boolean;
  detect(ctx: ScanContext): Promise<Finding[]>;
}

export function defineDetector<D extends z.ZodRawShape>(detector: Detector<D>): Detector<D> {
  return detector;
}

/**
 * Types among `findings` that are independent of each other: taken strongest first, a type counts
 * when it reads none of the inputs of a type already counted (insider-accumulation and flow-anomaly
 * both read insider flows: together they count once).
 */
export function independentTypes(findings: ScoredFinding[]): string[] {
  const best = new Map<string, ScoredFinding>();
  for (const f of findings) if ((best.get(f.type)?.score ?? -1) < f.score) best.set(f.type, f);
  const used = new Set<Input>();
  const picked: string[] = [];
  for (const f of [...best.values()].sort((a, b) => b.score - a.score || a.type.localeCompare(b.type))) {
    if (f.inputs.some((input) => used.has(input))) continue;
    for (const input of f.inputs) used.add(input);
    picked.push(f.type);
  }
  return picked.sort();
}
