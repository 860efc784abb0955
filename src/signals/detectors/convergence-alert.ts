import { z } from "zod";
import { typeOfId } from "../../entities/vocabulary.ts";
import { defineDetector, independentTypes } from "../detector.ts";
import { append } from "../kit.ts";
import { SOURCES } from "../sources.ts";

/** Entities on which three or more detector types fire in the same scan (screened findings only). */
export default defineDetector({
  slug: "convergence-alert",
  category: "Cross-Domain Convergence",
  description: "Entities triggering 3+ independent signal types (types reading none of the same inputs) in one scan; high: 5+ types (moderate 4, low 3).",
  inputs: ["signals"],
  metric: { name: "independent_signal_types", description: "detector types with a screened finding on the entity in this scan that read none of the same inputs" },
  bands: { direction: "higher", unit: "types", low: 3, moderate: 4, high: 5 },
  details: {
    types: z.array(z.string()).describe("the independent types counted"),
    all_types: z.array(z.string()).describe("every type found on the entity"),
    categories: z.array(z.string()),
    signal_ids: z.array(z.string()),
    highest_severity: z.enum(["low", "moderate", "high"]),
  },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.SIGNALS],
    note: "derived: as real as the signals it links",
  },
  derived: true,
  async detect(ctx) {
    const byEntity = new Map<string, typeof ctx.earlier>();
    for (const finding of ctx.earlier) {
      if (!finding.screened) continue;
      for (const entity of new Set(finding.entities)) {
        if (!typeOfId(entity)) continue; // wallets and other outside ids are not entities of the graph
        append(byEntity, entity, finding);
      }
    }
    const findings = [];
    for (const [entity, list] of [...byEntity].sort(([a], [b]) => a.localeCompare(b))) {
      const types = independentTypes(list);
      if (types.length < 3) continue;
      const allTypes = [...new Set(list.map((f) => f.type))].sort();
      const ordered = [...list].sort((a, b) => b.score - a.score || a.signalId.localeCompare(b.signalId));
      const highest = ordered[0]!.severity;
      findings.push({
        entities: [entity],
        value: types.length,
        window: { from: ctx.asOf, to: ctx.asOf },
        lastDataDate: null,
        dataPoints: ordered.slice(0, 10).map((f) => ({ table: "signals", entity, date: ctx.asOf, column: f.type, value: f.score })),
        summary: `${ctx.graph.name(entity)} triggers ${types.length} independent signal types at once: ${types.join(", ")}.`,
        synthetic: list.some((f) => f.synthetic),
        details: {
          types,
          all_types: allTypes,
          categories: [...new Set(list.map((f) => f.category))].sort(),
          signal_ids: ordered.map((f) => f.signalId),
          highest_severity: highest,
        },
      });
    }
    return findings;
  },
});
