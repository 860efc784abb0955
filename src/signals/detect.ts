/**
 * @module signals/detect
 * Every detector over one scan context, as a scan (signals/scan.ts) and a backtest (backtest/)
 * both run it: each finding judged for provenance (a synthetic finding keeps only generated
 * entities), scored and screened (signals/score.ts), keyed, deduplicated within its type, and
 * named by `identify` (a scan looks up open episodes in the state store; a backtest has none),
 * then handed to the derived types that run after it. A detector that fails is reported and the
 * others go on.
 */
import type { SnapshotManifest } from "../store/manifest.ts";
import type { Kind } from "../timeseries/kinds.ts";
import type { Detector, Finding, ScanContext } from "./detector.ts";
import type { GraphFacts } from "./graph-facts.ts";
import { signalKey } from "./identity.ts";
import type { IdentifiedCandidate } from "./qualify.ts";
import type { TypeReport } from "./scan-report.ts";
import { type Candidate, scoreFinding } from "./score.ts";

/** Names each of a type's keyed candidates: its signal id and the start of its episode. */
export type Identify = (detector: Detector, keys: string[]) => Promise<Map<string, { signalId: string; episodeStart: string }>>;

export interface Detection {
  reports: TypeReport[];
  errors: { type: string; message: string }[];
  candidates: IdentifiedCandidate[];
  /** Types that ran to the end. */
  ran: string[];
}

export async function detectAll(
  ctx: ScanContext,
  detectors: readonly Detector[],
  judge: { manifest: SnapshotManifest; tables: Map<Kind, string[]> },
  identify: Identify,
  onType?: (report: TypeReport, index: number) => void,
): Promise<Detection> {
  const { manifest, tables } = judge;
  const syntheticSources = new Set(manifest.sources.filter((s) => s.synthetic).map((s) => s.id));
  const provenance = findingProvenance(manifest, syntheticSources, ctx.graph, tables);
  const isReal = (id: string) => {
    const source = ctx.graph.sourceOf(id);
    return source !== undefined && !syntheticSources.has(source);
  };
  const out: Detection = { reports: [], errors: [], candidates: [], ran: [] };
  for (const [index, detector] of detectors.entries()) {
    const t0 = performance.now();
    const report: TypeReport = { type: detector.slug, ms: 0, found: 0, below_threshold: 0, duplicates: 0, real_only_dropped: 0, by_severity: {} };
    try {
      const findings = await detector.detect(ctx);
      const byKey = new Map<string, Omit<Candidate, "key">>();
      for (const found of findings) {
        const { synthetic } = provenance(detector, found);
        // Demo data speaks of generated entities only: a real entity it reaches through a synthetic
        // link (a synthetic market's real asset) is left out, and a finding left about no one is dropped.
        const finding = synthetic ? { ...found, entities: found.entities.filter((e) => !isReal(e)) } : found;
        if (finding.entities.length === 0) {
          report.real_only_dropped++;
          continue;
        }
        const { sources } = provenance(detector, finding);
        const scored = scoreFinding(detector, finding, { asOf: ctx.asOf, ns: manifest.namespaces, sources, synthetic });
        if (!scored) {
          report.below_threshold++;
          continue;
        }
        const key = signalKey(scored.uris, finding.key);
        const previous = byKey.get(key);
        if (previous) report.duplicates++;
        if (!previous || scored.score > previous.score) byKey.set(key, scored);
      }
      const names = await identify(detector, [...byKey.keys()]);
      for (const [key, scored] of byKey) {
        const { signalId: id, episodeStart } = names.get(key)!;
        out.candidates.push({ ...scored, key, signalId: id, episodeStart });
        report.by_severity[scored.severity] = (report.by_severity[scored.severity] ?? 0) + 1;
        ctx.earlier.push({
          signalId: id,
          type: detector.slug,
          category: detector.category,
          inputs: detector.inputs,
          entities: scored.finding.entities,
          score: scored.score,
          severity: scored.severity,
          summary: scored.finding.summary,
          synthetic: scored.evidence.synthetic === true,
          screened: scored.failed.length === 0,
          evidence: scored.evidence,
        });
      }
      report.found = byKey.size;
      out.ran.push(detector.slug);
    } catch (error) {
      report.error = (error as Error).message;
      out.errors.push({ type: detector.slug, message: report.error });
    }
    report.ms = Math.round(performance.now() - t0);
    out.reports.push(report);
    onType?.(report, index);
  }
  return out;
}

/**
 * What one finding was computed from, and whether any of it is generated demo data: the published
 * tables its data points come from, and for graph types the sources of the entities it names (a
 * synthetic fact only links generated entities: graph-facts.ts). Derived types say themselves
 * whether a signal they link is synthetic. Per finding, not per type: once an ingest adds real
 * series beside the demo's, a signal on real data is not labelled synthetic.
 */
function findingProvenance(
  manifest: SnapshotManifest,
  syntheticSources: Set<string>,
  graph: GraphFacts,
  tables: Map<Kind, string[]>,
): (detector: Detector, finding: Finding) => { sources: string[]; synthetic: boolean } {
  const provenanceOf = new Map(manifest.timeseries.map((t) => [t.name, t.provenance]));
  return (detector, finding) => {
    const sources = new Set<string>();
    for (const point of finding.dataPoints) if (provenanceOf.has(point.table)) sources.add(point.table);
    if (detector.inputs.some((input) => input.startsWith("graph:"))) {
      for (const entity of finding.entities) {
        const source = graph.sourceOf(entity);
        if (source) sources.add(source);
      }
    }
    if (sources.size === 0) {
      // Nothing named by the finding: every table the type reads (or the signals it derives from).
      for (const input of detector.inputs) for (const table of input.startsWith("ts:") ? (tables.get(input.slice(3) as Kind) ?? []) : []) sources.add(table);
    }
    const list = sources.size > 0 ? [...sources].sort() : ["signals"];
    const synthetic = finding.synthetic === true || list.some((s) => syntheticSources.has(provenanceOf.get(s) ?? s));
    return { sources: list, synthetic };
  };
}
