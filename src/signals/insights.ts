/**
 * @module signals/insights
 * What the insight routes answer, read from the state store: signals by type or across types,
 * and the analysis of one entity (its active signals with evidence, the narratives linking them,
 * and a short summary in words and counts).
 */
import { z } from "zod";
import { CkgError } from "../errors.ts";
import type { IndexedNode } from "../entities/name-index.ts";
import type { StateStore } from "../store/state.ts";
import { BAND_STARTS, SEVERITIES } from "./bands.ts";
import { DETECTORS, detectorFor } from "./detectors/index.ts";
import { anyEvidenceSchema } from "./evidence.ts";
import { ACTIONABILITY } from "./narratives.ts";
import { NO_SERIES_NOTE } from "../timeseries/figures.ts";
import { signalQualitySchema } from "./quality.ts";
import { QUALIFICATIONS, type Signal, hasFinishedScan, querySignals } from "./store.ts";
import { SYNTHETIC_MARK, marked, unmarked } from "./synthetic.ts";
import { isoSeconds } from "../time.ts";

const signalSchema = z.object({
  signal_id: z.string(),
  signal_type: z.string(),
  synthetic: z.boolean().describe(`true when any source of the signal is generated demo data; its summary then ends with "${SYNTHETIC_MARK}"`),
  entities: z.array(z.string()).describe("entity URIs (a wallet's CAIP-10 id for wallet signals)"),
  score: z.number().describe(`0..100; ${BAND_STARTS}`),
  severity: z.enum(SEVERITIES),
  evidence: anyEvidenceSchema.describe("the fields every type's evidence has, and the type's own (its evidence_schema in the catalog)"),
  created_at: z.string().describe("first detected, ISO 8601 UTC"),
  seen_at: z.string().describe("last found by a scan, ISO 8601 UTC; since_hours filters on it"),
  qualification: z.enum(QUALIFICATIONS),
  active: z.boolean().describe("false once a scan on newer data no longer finds it"),
  quality: signalQualitySchema,
});

export const qualificationFilter = z.enum([...QUALIFICATIONS, "all"]).default("qualified");

export const signalListSchema = z.object({
  signals: z.array(signalSchema),
  count: z.number().int().describe("signals in this answer"),
  total: z.number().int().describe("signals matching the filters, before limit"),
});

export function sinceIso(sinceHours: number, now = new Date()): string {
  return isoSeconds(new Date(now.getTime() - sinceHours * 3_600_000));
}

/** 404 unknown_signal_type naming the known slugs. */
export function assertSignalType(slug: string): void {
  if (detectorFor(slug)) return;
  throw new CkgError("unknown_signal_type", `There is no signal type "${slug}"; GET /api/signals/catalog lists the ${DETECTORS.length} types.`, {
    details: { signal_type: slug, known: DETECTORS.map((d) => d.slug) },
  });
}

/** 503 while the first scan of a data directory is still running (nothing to answer from yet). */
export async function assertScanned(state: StateStore, scanning: boolean): Promise<void> {
  if (scanning && !(await hasFinishedScan(state))) {
    throw new CkgError("not_ready", "The first signal scan is still running; signals appear when it finishes.", { retryAfterSeconds: 5, details: { phase: "scanning" } });
  }
}

const narrativeSchema = z.object({
  signal_id: z.string(),
  synthetic: z.boolean().describe(`true when any signal it links is synthetic; its text then ends with "${SYNTHETIC_MARK}"`),
  title: z.string(),
  text: z.string(),
  actionability: z.enum(ACTIONABILITY),
  scope: z.string(),
  score: z.number(),
  qualification: z.enum(QUALIFICATIONS),
  writer: z.string(),
  linked_signals: z.array(z.string()),
  created_at: z.string(),
});

export const entityAnalysisSchema = z.object({
  entity: z.object({ uri: z.string(), name: z.string(), type: z.string(), labels: z.array(z.string()) }),
  since: z.string(),
  summary: z.object({
    synthetic: z.boolean().describe(`true when any signal or narrative in this answer is synthetic; the text then ends with "${SYNTHETIC_MARK}"`),
    text: z.string(),
    time_series_tables: z
      .array(z.string())
      .describe("published time-series tables with rows for the entity; empty when there are none yet (a real entity before `ckg ingest`): the text says so"),
    signals: z.number().int(),
    by_severity: z.record(z.string(), z.number().int()),
    by_category: z.record(z.string(), z.number().int()),
    highest: z.object({ signal_type: z.string(), score: z.number(), severity: z.enum(SEVERITIES) }).nullable(),
    actionability: z.enum(ACTIONABILITY).nullable().describe("of the most urgent narrative about the entity itself (not its sector), when any"),
  }),
  signals: z.array(signalSchema),
  narratives: z.array(narrativeSchema),
  other_entities_named_alike: z.array(z.object({ uri: z.string(), type: z.string() })),
});
export type EntityAnalysis = z.infer<typeof entityAnalysisSchema>;

/**
 * Active (not ended, not rejected) signals on the entity seen within the window, strongest first.
 * `seriesTables`: the published tables with rows for it (none: the summary says there is no data yet).
 */
export async function analyseEntity(state: StateStore, node: IndexedNode, others: IndexedNode[], sinceHours: number, seriesTables: string[]): Promise<EntityAnalysis> {
  const since = sinceIso(sinceHours);
  const { signals: all } = await querySignals(state, { qualification: "all", since, limit: 500, entities: [node.uri], activeOnly: true });
  const narratives = all.filter((s) => s.signal_type === "narrative-synthesis");
  const signals = all.filter((s) => s.signal_type !== "narrative-synthesis");
  const category = new Map(DETECTORS.map((d) => [d.slug, d.category]));
  const count = <K extends string>(list: Signal[], key: (s: Signal) => K) =>
    list.reduce<Record<string, number>>((acc, s) => ((acc[key(s)] = (acc[key(s)] ?? 0) + 1), acc), {});
  const top = signals[0];
  // The entity's own narratives rate it; a sector's briefing that mentions it does not.
  const urgency =
    narratives
      .filter((n) => n.evidence.scope !== "sector")
      .map((n) => n.evidence.actionability as (typeof ACTIONABILITY)[number])
      .sort((a, b) => ACTIONABILITY.indexOf(a) - ACTIONABILITY.indexOf(b))[0] ?? null;
  const bySeverity = count(signals, (s) => s.severity);
  const synthetic = all.some((s) => s.synthetic);
  const text =
    (signals.length === 0
      ? `No active signals on ${node.name} in the last ${sinceHours} hours.`
      : `${node.name} has ${signals.length} active signal${signals.length === 1 ? "" : "s"} (${SEVERITIES.filter((s) => bySeverity[s]).reverse().map((s) => `${bySeverity[s]} ${s}`).join(", ")}); ` +
        `the strongest is ${top!.signal_type} at ${top!.score.toFixed(0)}: ${unmarked(String(top!.evidence.summary ?? ""))}` +
        (urgency ? ` Narratives rate it ${urgency}.` : "")) + (seriesTables.length === 0 ? ` ${NO_SERIES_NOTE}` : "");
  return {
    entity: { uri: node.uri, name: node.name, type: node.type, labels: node.labels },
    since,
    summary: {
      synthetic,
      text: marked(text, synthetic),
      time_series_tables: seriesTables,
      signals: signals.length,
      by_severity: bySeverity,
      by_category: count(signals, (s) => category.get(s.signal_type) ?? "other"),
      highest: top ? { signal_type: top.signal_type, score: top.score, severity: top.severity } : null,
      actionability: urgency,
    },
    signals,
    narratives: narratives.map((n) => ({
      signal_id: n.signal_id,
      synthetic: n.synthetic,
      title: String(n.evidence.title),
      text: String(n.evidence.text),
      actionability: n.evidence.actionability as (typeof ACTIONABILITY)[number],
      scope: String(n.evidence.scope),
      score: n.score,
      qualification: n.qualification,
      writer: String(n.evidence.writer),
      linked_signals: ((n.evidence.linked_signals as { signal_id: string }[]) ?? []).map((l) => l.signal_id),
      created_at: n.created_at,
    })),
    other_entities_named_alike: others.map((o) => ({ uri: o.uri, type: o.type })),
  };
}
