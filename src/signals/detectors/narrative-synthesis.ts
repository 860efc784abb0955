import { z } from "zod";
import { typeOfId } from "../../entities/vocabulary.ts";
import { defineDetector, independentTypes, type ScanContext, type ScoredFinding } from "../detector.ts";
import { append, round } from "../kit.ts";
import { ACTIONABILITY, type Actionability, type Brief } from "../narratives.ts";
import { marked } from "../synthetic.ts";
import { SOURCES } from "../sources.ts";

const LEVEL: Record<Actionability, number> = { informational: 1, watchlist: 2, urgent: 3 };

/**
 * Briefings linking the scan's screened signals: per entity (two or more types; "cross-domain" when
 * they span categories) and per sector (signals on three or more of its protocols and tokens).
 * Actionability: urgent with a high signal among 3+ independent types, or high signals of 2
 * independent types; watchlist with any high or 2+ moderate; informational otherwise. The raw metric is the level (1, 2, 3) plus the linked
 * signals' mean score / 101, so the score ranks narratives within their band.
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
    writer: z.string().describe("offline, or llm:<model> when an OpenAI-compatible endpoint wrote it"),
    writer_error: z.string().optional().describe("why the endpoint's text was not used"),
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
    const groups: { scope: Brief["scope"]; subject: string; key: string; entities: string[]; list: ScoredFinding[] }[] = [];

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

    groups.sort((a, b) => a.key.localeCompare(b.key));
    const findings = [];
    for (const group of groups) findings.push(await narrate(ctx, group));
    return findings;
  },
});

async function narrate(ctx: ScanContext, group: { scope: Brief["scope"]; subject: string; key: string; entities: string[]; list: ScoredFinding[] }) {
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
    signals: list.map((f) => ({ signalId: f.signalId, type: f.type, category: f.category, severity: f.severity, score: f.score, summary: f.summary })),
  };
  const written = await ctx.narrator.write(brief);
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
      linked_signals: list.map((f) => ({ signal_id: f.signalId, signal_type: f.type, severity: f.severity, score: f.score })),
    },
  };
}
