/**
 * @module backtest/incident-labels
 * The exploits DefiLlama's `/hacks` supplies, as labels: every security incident an ingest put in
 * the graph (a `SecurityIncident` with its `occurredOn` day, linked by `incidentOf` to the
 * protocols it hit) is an `exploit` label on each protocol it names. An incident already labelled
 * by hand (same entity, day and kind) is not counted twice.
 */
import { rowsOf } from "../signals/kit.ts";
import type { Label } from "./labels.ts";
import type { ReplayWorld } from "./world.ts";

export async function incidentLabels(world: ReplayWorld, given: readonly Label[]): Promise<Label[]> {
  const rows = await rowsOf<{ incident: string; protocol: string; day: string; name: string | null; amount: string | null; technique: string | null }>(
    world.c,
    `WITH f AS (SELECT subject_id, predicate, object FROM facts WHERE starts_with(subject_id, 'security-incident/'))
     SELECT l.subject_id AS incident, l.object AS protocol, left(d.object, 10) AS day,
       (SELECT any_value(object) FROM f WHERE subject_id = l.subject_id AND predicate = 'schema:name') AS name,
       (SELECT any_value(object) FROM f WHERE subject_id = l.subject_id AND predicate = 'amountUsd') AS amount,
       (SELECT any_value(object) FROM f WHERE subject_id = l.subject_id AND predicate = 'technique') AS technique
     FROM f l JOIN f d ON d.subject_id = l.subject_id AND d.predicate = 'occurredOn'
     WHERE l.predicate = 'incidentOf' ORDER BY day, incident, protocol`,
  );
  const known = new Set(given.map((l) => `${l.entity} ${l.day} ${l.kind}`));
  const labels: Label[] = [];
  for (const r of rows) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(r.day) || known.has(`${r.protocol} ${r.day} exploit`)) continue;
    known.add(`${r.protocol} ${r.day} exploit`);
    const amount = r.amount === null ? "amount not given" : `${(Number(r.amount) / 1e6).toFixed(1)} M USD`;
    labels.push({
      id: `hack:${r.incident.slice("security-incident/".length)}:${r.protocol}`,
      entity: r.protocol,
      day: r.day,
      kind: "exploit",
      source: `DefiLlama /hacks, ingested (${r.incident}): ${r.name ?? "unnamed"}, ${amount}${r.technique ? `, ${r.technique}` : ""}`,
      independent: true,
    });
  }
  return labels;
}
