/**
 * How the signals of a scan on a planted world compare with its ground truth (the anomalies the
 * generator planted, ground_truth.json), per type: used by test/signals/planted.test.ts and by
 * scripts/bench/planted.ts (the table of the default world).
 *
 * - caught: planted cases with a signal of their type naming every entity the case names (as the
 *   detection test matches them); at band: of those, found with the planted severity.
 * - extra: signals of the type that name none of the entities planted for that type: alarms the
 *   plants do not explain. A signal about a planted entity is not counted as extra (a cluster type
 *   names a cluster around each member; they are one planted case). Of those, `byOtherPlants` name
 *   an entity planted for another type (a plant whose figures make this type's case too).
 * - precision: (found - extra) / found, and the same over the signals passing the screens (what
 *   an agent is served); recall: caught / planted.
 */
import type { GroundTruth } from "../../src/model/series.ts";
import { type Namespaces, entityUri, typeOfId } from "../../src/entities/vocabulary.ts";
import type { Severity } from "../../src/signals/bands.ts";

export interface ScannedSignal {
  signal_type: string;
  /** Entity URIs (outside ids such as wallets as they are). */
  entities: string[];
  severity: Severity;
  /** Failed a screen (stale, below the size floor, duplicate): stored, not served by default. */
  rejected: boolean;
}

export interface PlantedRow {
  type: string;
  planted: number;
  found: number;
  /** Found and passing the type's screens. */
  passed: number;
  caught: number;
  atBand: number;
  extra: number;
  /** Extra signals that passed the screens: the false alarms an agent is served. */
  extraPassed: number;
  extraBySeverity: Record<Severity, number>;
  /** Extra signals naming an entity planted for another type. */
  byOtherPlants: number;
  /** null where nothing was found (or planted). */
  precision: number | null;
  precisionPassed: number | null;
  recall: number | null;
}

export function plantedQuality(types: readonly string[], anomalies: readonly GroundTruth[], signals: readonly ScannedSignal[], ns: Namespaces): PlantedRow[] {
  const uri = (id: string) => (typeOfId(id) ? entityUri(ns, id) : id);
  const plantedFor = new Map<string, Set<string>>();
  for (const a of anomalies) for (const id of a.entities) plantedFor.set(uri(id), (plantedFor.get(uri(id)) ?? new Set()).add(a.signal_type));
  return types.map((type) => {
    const planted = anomalies.filter((a) => a.signal_type === type).map((a) => ({ band: a.band, uris: a.entities.map(uri) }));
    const found = signals.filter((s) => s.signal_type === type);
    const plantedUris = new Set(planted.flatMap((p) => p.uris));
    const matches = planted.map((p) => found.filter((s) => p.uris.every((u) => s.entities.includes(u))));
    const extra = found.filter((s) => !s.entities.some((u) => plantedUris.has(u)));
    const extraBySeverity: Record<Severity, number> = { low: 0, moderate: 0, high: 0 };
    for (const s of extra) extraBySeverity[s.severity]++;
    const caught = matches.filter((m) => m.length > 0).length;
    const passed = found.filter((s) => !s.rejected).length;
    const extraPassed = extra.filter((s) => !s.rejected).length;
    return {
      type,
      planted: planted.length,
      found: found.length,
      passed,
      caught,
      atBand: matches.filter((m, i) => m.some((s) => s.severity === planted[i]!.band)).length,
      extra: extra.length,
      extraPassed,
      extraBySeverity,
      byOtherPlants: extra.filter((s) => s.entities.some((u) => [...(plantedFor.get(u) ?? [])].some((t) => t !== type))).length,
      precision: found.length > 0 && planted.length > 0 ? (found.length - extra.length) / found.length : null,
      precisionPassed: passed > 0 && planted.length > 0 ? (passed - extraPassed) / passed : null,
      recall: planted.length > 0 ? caught / planted.length : null,
    };
  });
}
