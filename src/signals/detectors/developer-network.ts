import { z } from "zod";
import { defineDetector } from "../detector.ts";
import { rowsOf, usd } from "../kit.ts";
import { invert, pairsSharing } from "../graph-facts.ts";
import { sqlString } from "../../store/duckdb.ts";
import { SOURCES } from "../sources.ts";

const BUS_FACTOR = { name: "contributors", unit: "people", bands: { direction: "lower" as const, unit: "people", low: 3, moderate: 2, high: 0 } };

/**
 * Two findings of one type: protocols sharing developers (the same people behind both), and
 * protocols above 10M USD TVL whose repositories have only one or two contributors (bus factor).
 */
export default defineDetector({
  slug: "developer-network",
  category: "Investment Graph Intelligence",
  description:
    "Projects sharing developers, and bus-factor risk; high: 10+ shared developers (moderate 5-9 shared, or 1-2 contributors behind a protocol above 10M USD TVL; low 3-4 shared). Protocols of one family or sharing a repository are one project, never a pair.",
  inputs: ["graph:contributesTo", "graph:hasRepository", "ts:protocol"],
  metric: { name: "shared_developers", description: "people contributing to repositories of both protocols (bus-factor findings: contributors, where 1-2 is moderate)" },
  bands: { direction: "higher", unit: "developers", low: 3, moderate: 5, high: 10 },
  details: {
    kind: z.enum(["shared_developers", "bus_factor"]),
    developers: z.array(z.string()),
    tvl_usd: z.number().nullable(),
  },
  screens: { maxAgeDays: null },
  realData: {
    status: "yes",
    sources: [SOURCES.GH, SOURCES.DL_TVL],
  },
  async detect(ctx) {
    const { graph } = ctx;
    const findings = [];
    // Protocols of one family (Uniswap V2 and V3) or sharing a repository are one project: their
    // "shared" developers are the same team by construction, not a network between projects.
    const family = (p: string) => graph.familyOf.get(p) ?? p;
    const oneProject = (a: string, b: string) =>
      family(a) === family(b) || (graph.repositoriesOf.get(a) ?? []).some((repo) => (graph.repositoriesOf.get(b) ?? []).includes(repo));
    for (const { a, b, shared: people } of pairsSharing(invert(graph.developersOf), 3, oneProject)) {
      findings.push({
        entities: [a, b],
        value: people.length,
        window: { from: ctx.asOf, to: ctx.asOf },
        lastDataDate: null,
        dataPoints: people.slice(0, 10).map((p) => ({ table: "graph", entity: p, date: null, column: "contributesTo", value: `${a} & ${b}` })),
        summary: `${graph.name(a)} and ${graph.name(b)} share ${people.length} developers, among them ${people.slice(0, 3).map((p) => graph.name(p)).join(", ")}.`,
        details: { kind: "shared_developers" as const, developers: people, tvl_usd: null },
      });
    }
    const small = [...graph.developersOf].filter(([, people]) => people.length <= 2);
    if (small.length > 0) {
      const tvl = new Map(
        (
          await rowsOf<{ id: string; tvl: number }>(
            ctx.c,
            `SELECT entity_id AS id, arg_max("tvlUsd", date) AS tvl FROM protocol WHERE date > ${ctx.day(7)} AND date <= ${ctx.day(0)}
             AND entity_id IN (${small.map(([p]) => sqlString(p)).join(", ")}) GROUP BY entity_id HAVING arg_max("tvlUsd", date) >= 10e6`,
          )
        ).map((r) => [r.id, r.tvl]),
      );
      for (const [protocol, people] of small) {
        const value = tvl.get(protocol);
        if (value === undefined) continue;
        findings.push({
          entities: [protocol],
          key: `bus-factor:${protocol}`,
          value: people.length,
          metric: BUS_FACTOR,
          window: { from: ctx.asOf, to: ctx.asOf },
          lastDataDate: null,
          dataPoints: [{ table: "graph", entity: protocol, date: null, column: "contributors", value: people.length }],
          summary: `${graph.name(protocol)} holds ${usd(value)} but its repositories have only ${people.length} contributor${people.length === 1 ? "" : "s"}.`,
          details: { kind: "bus_factor" as const, developers: people, tvl_usd: Math.round(value) },
        });
      }
    }
    return findings;
  },
});
