import { z } from "zod";
import { SETTINGS } from "../../config/settings.ts";
import { typeOfId } from "../../entities/vocabulary.ts";
import { defineDetector, independentTypes, type ScanContext, type ScoredFinding } from "../detector.ts";
import { append, round } from "../kit.ts";
import { ACTIONABILITY, type Actionability, type Brief, FALLBACKS, type Written } from "../narratives.ts";
import { BREAKER_FAILURES, MAX_CALLS } from "../narrator.ts";
import { marked } from "../synthetic.ts";
import { SOURCES } from "../sources.ts";

const LEVEL: Record<Actionability, number> = { informational: 1, watchlist: 2, urgent: 3 };

/**
 * Briefings linking the scan's screened signals: per entity (two or more types; "cross-domain" when
 * they span categories) and per sector (signals on three or more of its protocols and tokens).
 * Actionability: urgent with a high signal among 3+ independent types, or high signals of 2
 * independent types; watchlist with any high or 2+ moderate; informational otherwise. The raw metric is the level (1, 2, 3) plus the linked
 * signals' mean score / 101, so the score ranks narratives within their band. The words are the
 * narrator's (signals/narrator.ts), written for all of the scan's narratives in one call so its
 * budget and breaker span the scan.
 */
export default defineDetector({
  slug: "narrative-synthesis",
  category: "Cross-Domain Convergence",
  description: "Synthesized briefings linking signals per entity, per sector and across domains; high: urgent narratives; moderate: watchlist; low: informational.",
  inputs: ["signals"],
  metric: { name: "actionability_level", description: "1 informational, 2 watchlist, 3 urgent, plus mean linked score / 101" },
  bands: { direction: "higher", unit: "level", low: 1, moderate: 2, high: 3 },
  details: {
    actionability: z.enum(ACTIONABILITY),
    scope: z.enum(["entity", "sector", "cross-domain"]),
    subject: z.string(),
    title: z.string(),
    text: z.string(),
    writer: z
      .string()
      .describe(
        "offline (the deterministic template), or llm:<model> when the OpenAI-compatible endpoint of CKG_NARRATIVE_URL wrote it: each call within " +
          `CKG_NARRATIVE_TIMEOUT_MS (default ${SETTINGS.narrative_timeout_ms.default / 1000} s), all of a scan's calls within CKG_NARRATIVE_BUDGET_MS ` +
          `(default ${SETTINGS.narrative_budget_ms.default / 1000} s), at most ${MAX_CALLS}, and none after ` +
          `${BREAKER_FAILURES} failures in a row; its text is kept only when every figure in it is in the linked signals' evidence`,
      ),
    writer_error: z.string().optional().describe("why the endpoint's text was not used, in words (set with fallback)"),
    fallback: z
      .enum(FALLBACKS)
      .optional()
      .describe(
        "why the template stands though an endpoint is configured: endpoint_failed (an error, a status, no text), endpoint_timed_out (the per-call " +
          `time limit), breaker_open (${BREAKER_FAILURES} failures in a row earlier in the scan), budget_spent (the scan's narration budget), call_cap ` +
          `(${MAX_CALLS} calls), unbacked_figures (the endpoint stated a figure the evidence does not hold)`,
      ),
    unbacked_figures: z.array(z.string()).optional().describe("with fallback unbacked_figures: the endpoint's figures, as it wrote them, that no linked signal's evidence holds"),
    linked_signals: z.array(z.object({ signal_id: z.string(), signal_type: z.string(), severity: z.enum(["low", "moderate", "high"]), score: z.number() })),
  },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.SIGNALS],
    note: "derived: as real as the signals it links",
  },
  derived: true,
  async detect(ctx) {
    const screened = ctx.earlier.filter((f) => f.screened && f.type !== "convergence-alert");
    const groups: Group[] = [];

    const byEntity = new Map<string, ScoredFinding[]>();
    for (const f of screened) for (const e of new Set(f.entities)) if (typeOfId(e)) append(byEntity, e, f);
    for (const [entity, list] of byEntity) {
      if (new Set(list.map((f) => f.type)).size < 2) continue;
      const crossDomain = new Set(list.map((f) => f.category)).size >= 2;
      groups.push({ scope: crossDomain ? "cross-domain" : "entity", subject: ctx.graph.name(entity), key: `entity:${entity}`, entities: [entity], list });
    }

    const sectorOf = (id: string) => ctx.graph.sectorOf.get(ctx.graph.issuerOf.get(id) ?? id);
    const bySector = new Map<string, ScoredFinding[]>();
    for (const f of screened) {
      const sectors = new Set(f.entities.map(sectorOf).filter((s): s is string => Boolean(s)));
      for (const s of sectors) append(bySector, s, f);
    }
    for (const [sector, list] of bySector) {
      const entities = [...new Set(list.flatMap((f) => f.entities.filter((e) => sectorOf(e) === sector)))].sort();
      if (entities.length < 3 || new Set(list.map((f) => f.type)).size < 2) continue;
      groups.push({ scope: "sector", subject: sector, key: `sector:${sector}`, entities: entities.slice(0, 10), list });
    }

    // In key order: the narrator writes them in this order, and its budget reaches the first ones.
    groups.sort((a, b) => a.key.localeCompare(b.key));
    const briefs = groups.map((group) => brief(ctx, group));
    const written = await ctx.narrator.writeAll(briefs.map((b) => b.brief));
    return briefs.map((b, i) => finding(ctx, b, written[i]!));
  },
});

type Group = { scope: Brief["scope"]; subject: string; key: string; entities: string[]; list: ScoredFinding[] };
type Briefed = { group: Group; list: ScoredFinding[]; actionability: Actionability; mean: number; brief: Brief };

function brief(ctx: ScanContext, group: Group): Briefed {
  const list = [...group.list].sort((a, b) => b.score - a.score || a.signalId.localeCompare(b.signalId));
  const high = list.filter((f) => f.severity === "high");
  const moderate = list.filter((f) => f.severity === "moderate").length;
  const independent = independentTypes(list).length;
  const independentHigh = independentTypes(high).length;
  const actionability: Actionability =
    (high.length >= 1 && independent >= 3) || independentHigh >= 2 ? "urgent" : high.length >= 1 || moderate >= 2 ? "watchlist" : "informational";
  const mean = list.reduce((sum, f) => sum + f.score, 0) / list.length;
  const brief: Brief = {
    scope: group.scope,
    subject: group.subject,
    actionability,
    asOf: ctx.asOf,
    signals: list.map((f) => ({ signalId: f.signalId, type: f.type, category: f.category, severity: f.severity, score: f.score, summary: f.summary, evidence: f.evidence })),
  };
  return { group, list, actionability, mean, brief };
}

function finding(ctx: ScanContext, { group, list, actionability, mean }: Briefed, written: Written) {
  // The writer sees the unmarked summaries; the narrative says once that it rests on demo data.
  const synthetic = list.some((f) => f.synthetic);
  return {
    entities: group.entities,
    key: group.key,
    value: round(LEVEL[actionability] + mean / 101, 4),
    window: { from: ctx.asOf, to: ctx.asOf },
    lastDataDate: null,
    dataPoints: list.slice(0, 10).map((f) => ({ table: "signals", entity: f.entities[0]!, date: ctx.asOf, column: f.type, value: f.score })),
    summary: written.title,
    synthetic,
    details: {
      actionability,
      scope: group.scope,
      subject: group.subject,
      title: written.title,
      text: marked(written.text, synthetic),
      writer: written.writer,
      ...(written.writer_error ? { writer_error: written.writer_error } : {}),
      ...(written.fallback ? { fallback: written.fallback } : {}),
      ...(written.unbacked_figures ? { unbacked_figures: written.unbacked_figures } : {}),
      linked_signals: list.map((f) => ({ signal_id: f.signalId, signal_type: f.type, severity: f.severity, score: f.score })),
    },
  };
}
