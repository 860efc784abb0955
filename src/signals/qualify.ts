/**
 * @module signals/qualify
 * Writes one scan's candidates into the state database and moves each signal through the states
 * of decisions.md, recording every move with its time and reason:
 *
 *   new finding            -> pending, then screened (passed the screens) or rejected (failed one)
 *   screened               -> qualified when corroborated in the same scan by an independent type
 *                             (a different detector reading none of the same inputs) about the same
 *                             main subject, or when a scan on newer data finds it again
 *   pending | screened     -> rejected when a scan on newer data no longer finds it (expired)
 *   rejected (screens)     -> screened when a scan on newer data finds it passing its screens
 *   qualified              -> rejected when a scan on newer data finds it failing a screen
 *
 * Derived types (convergence, narratives) are corroborated when two of the signals they link are
 * qualified. A scan on data no newer than a signal's own changes nothing but `seen_at`: re-running a
 * scan is idempotent. All of it is one transaction.
 */
import type { StateDb } from "../store/state-db.ts";
import { append } from "./kit.ts";
import type { Candidate } from "./score.ts";
import type { Qualification, SignalRow } from "./store.ts";

export interface IdentifiedCandidate extends Candidate {
  signalId: string;
  episodeStart: string;
}

export interface ScanMeta {
  scanId: string;
  asOf: string;
  now: string;
}

export interface ApplyCounts {
  new: number;
  updated: number;
  unchanged: number;
  moves: Record<string, number>;
  ended: number;
  /** The state each signal of this scan ended in, counted. */
  by_qualification: Record<string, number>;
}

/** The open episode of each key of a type (one read per type, not per finding): key -> episode start. */
export function openEpisodes(db: StateDb, type: string): Map<string, string> {
  const rows = db
    .query<Pick<SignalRow, "key" | "episode_start">, [string]>(
      "SELECT key, max(episode_start) AS episode_start FROM signals WHERE signal_type = ? AND ended_at IS NULL GROUP BY key",
    )
    .all(type);
  return new Map(rows.map((r) => [r.key, r.episode_start]));
}

export function applyScan(db: StateDb, meta: ScanMeta, candidates: IdentifiedCandidate[], typesRan: string[]): ApplyCounts {
  const counts: ApplyCounts = { new: 0, updated: 0, unchanged: 0, moves: {}, ended: 0, by_qualification: {} };
  const insertMove = db.query("INSERT INTO signal_moves (signal_id, at, from_state, to_state, reason, scan_id) VALUES (?, ?, ?, ?, ?, ?)");
  const setState = db.query("UPDATE signals SET qualification = ?, updated_at = ? WHERE signal_id = ?");
  const getRow = db.query<SignalRow, [string]>("SELECT * FROM signals WHERE signal_id = ?");
  const insertSignal = db.query(
    `INSERT INTO signals (signal_id, signal_type, key, entities, score, severity, evidence, qualification, created_at, updated_at, seen_at, episode_start, data_as_of)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
  );
  const updateSignal = db.query("UPDATE signals SET entities = ?, score = ?, severity = ?, evidence = ?, updated_at = ?, seen_at = ?, data_as_of = ? WHERE signal_id = ?");
  const touch = db.query("UPDATE signals SET seen_at = ? WHERE signal_id = ?");
  const link = db.query("INSERT OR IGNORE INTO signal_entities (signal_id, entity_uri) VALUES (?, ?)");
  const corroboration = corroborator(candidates);
  const state = new Map<string, Qualification>();

  const move = (id: string, from: Qualification | null, to: Qualification, reason: string): Qualification => {
    insertMove.run(id, meta.now, from, to, reason, meta.scanId);
    if (from !== null) setState.run(to, meta.now, id);
    counts.moves[to] = (counts.moves[to] ?? 0) + 1;
    return to;
  };
  /** pending | rejected -> screened, and on to qualified when corroborated in this scan. */
  const screen = (c: IdentifiedCandidate, from: Qualification, reason: string): Qualification => {
    move(c.signalId, from, "screened", reason);
    const why = c.detector.derived ? derivedCorroboration(c, state) : corroboration(c);
    return why ? move(c.signalId, "screened", "qualified", why) : "screened";
  };

  db.transaction(() => {
    // Derived types last: their corroboration reads the states the others reached in this scan.
    const ordered = [...candidates.filter((c) => !c.detector.derived), ...candidates.filter((c) => c.detector.derived)];
    for (const c of ordered) {
      const row = getRow.get(c.signalId);
      const screens = c.failed.length === 0 ? "passed its screens (fresh data, above the size floor, no duplicate)" : `failed screens: ${c.failed.join(", ")}`;
      if (row && row.data_as_of >= meta.asOf) {
        // The same data again (or older): nothing changes but when it was last seen.
        touch.run(meta.now, c.signalId);
        state.set(c.signalId, row.qualification);
        counts.unchanged++;
        continue;
      }
      if (row) {
        counts.updated++;
        updateSignal.run(JSON.stringify(c.uris), c.score, c.severity, JSON.stringify(c.evidence), meta.now, meta.now, meta.asOf, c.signalId);
      } else {
        counts.new++;
        insertSignal.run(c.signalId, c.detector.slug, c.key, JSON.stringify(c.uris), c.score, c.severity, JSON.stringify(c.evidence), meta.now, meta.now, meta.now, c.episodeStart, meta.asOf);
      }
      for (const uri of new Set(c.uris)) link.run(c.signalId, uri);

      let current: Qualification = row ? row.qualification : move(c.signalId, null, "pending", `detected by scan ${meta.scanId} on data as of ${meta.asOf}`);
      if (c.failed.length > 0) {
        if (current !== "rejected") current = move(c.signalId, current, "rejected", screens);
      } else if (current === "pending" || current === "rejected") {
        current = screen(c, current, row ? `${screens} on data as of ${meta.asOf}` : screens);
      } else if (current === "screened") {
        current = move(c.signalId, current, "qualified", `seen again by scan ${meta.scanId} on data as of ${meta.asOf} (first found on data as of ${row!.episode_start})`);
      }
      state.set(c.signalId, current);
    }

    // Episodes that a scan on newer data no longer finds end; unconfirmed ones expire.
    const end = db.query("UPDATE signals SET ended_at = ?, updated_at = ? WHERE signal_id = ?");
    for (const type of typesRan) {
      const open = db
        .query<Pick<SignalRow, "signal_id" | "qualification">, [string, string]>(
          "SELECT signal_id, qualification FROM signals WHERE signal_type = ? AND ended_at IS NULL AND data_as_of < ?",
        )
        .all(type, meta.asOf);
      for (const row of open) {
        if (state.has(row.signal_id)) continue;
        end.run(meta.now, meta.now, row.signal_id);
        counts.ended++;
        if (row.qualification === "pending" || row.qualification === "screened") {
          move(row.signal_id, row.qualification, "rejected", `expired unconfirmed: not found by scan ${meta.scanId} on data as of ${meta.asOf}`);
        }
      }
    }
  })();
  for (const q of state.values()) counts.by_qualification[q] = (counts.by_qualification[q] ?? 0) + 1;
  return counts;
}

/** Inputs two detectors share decide independence: a type reading the same table corroborates nothing. */
function corroborator(candidates: IdentifiedCandidate[]): (c: IdentifiedCandidate) => string | undefined {
  // By main subject (the first entity): a wallet's signal lists the protocols it used, but it is
  // about the wallet, and corroborates nothing about those protocols.
  const bySubject = new Map<string, IdentifiedCandidate[]>();
  for (const c of candidates) {
    if (c.detector.derived || c.failed.length > 0) continue;
    const subject = c.uris[0]!;
    append(bySubject, subject, c);
  }
  return (c) => {
    const inputs = new Set(c.detector.inputs);
    const subject = c.uris[0]!;
    for (const other of bySubject.get(subject) ?? []) {
      if (other.detector.slug === c.detector.slug) continue;
      if (other.detector.inputs.some((input) => inputs.has(input))) continue;
      return `corroborated by independent type ${other.detector.slug} (${other.signalId}) on ${subject}`;
    }
    return undefined;
  };
}

function derivedCorroboration(c: IdentifiedCandidate, state: Map<string, Qualification>): string | undefined {
  const details = c.evidence as { signal_ids?: string[]; linked_signals?: { signal_id: string }[] };
  const linked = details.signal_ids ?? details.linked_signals?.map((l) => l.signal_id) ?? [];
  const qualified = linked.filter((id) => state.get(id) === "qualified");
  return qualified.length >= 2 ? `${qualified.length} of its ${linked.length} linked signals are qualified` : undefined;
}
