/**
 * @module signals/qualify
 * Writes one scan's candidates into the state store and moves each signal through the states
 * of docs/decisions/0010-qualification-states.md, recording every move with its time and reason:
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
 * scan is idempotent. All of it is one transaction, under the signals lock (replicas sharing a
 * PostgreSQL store never apply two scans at once): the rows it touches are read in a few queries,
 * the moves decided in memory, and the writes sent as one batch, so PostgreSQL answers in round
 * trips per thousand signals, not per signal.
 */
import { SignalEvents, standingChanged } from "./outbox.ts";
import { type SqlValue, type StateQueries, type StateStore, type Statement, insertRows, placeholders } from "../store/state.ts";
import { append } from "./kit.ts";
import type { ApplyCounts } from "./scan-report.ts";
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

/** A scan that is no longer running when it comes to write: another replica took it over (store/runs.ts). */
class ScanTakenOver extends Error {
  constructor(scanId: string, status: string) {
    super(`scan ${scanId} is recorded ${status}, no longer running here (another replica took it over); its findings are not written`);
  }
}

/** The open episode of each key of a type (one read per type, not per finding): key -> episode start. */
export async function openEpisodes(state: StateStore, type: string): Promise<Map<string, string>> {
  const rows = await state.all<Pick<SignalRow, "key" | "episode_start">>(
    "SELECT key, max(episode_start) AS episode_start FROM signals WHERE signal_type = ? AND ended_at IS NULL GROUP BY key",
    [type],
  );
  return new Map(rows.map((r) => [r.key, r.episode_start]));
}

/** How many ids go in one IN list. */
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** One UPDATE per chunk of ids: `set` with its parameters, then the ids. */
function updateEach(set: string, params: readonly SqlValue[], ids: readonly string[]): Statement[] {
  return chunks(ids).map((chunk) => ({ sql: `UPDATE signals SET ${set} WHERE signal_id IN ${placeholders(chunk.length)}`, params: [...params, ...chunk] }));
}

async function rowsById(tx: StateQueries, ids: string[]): Promise<Map<string, SignalRow>> {
  const rows = new Map<string, SignalRow>();
  for (const chunk of chunks(ids)) {
    for (const row of await tx.all<SignalRow>(`SELECT * FROM signals WHERE signal_id IN ${placeholders(chunk.length)}`, chunk)) rows.set(row.signal_id, row);
  }
  return rows;
}

export function applyScan(state: StateStore, meta: ScanMeta, candidates: IdentifiedCandidate[], typesRan: string[]): Promise<ApplyCounts> {
  return state.transaction(
    async (tx) => {
      const scan = await tx.get<{ status: string }>("SELECT status FROM scans WHERE scan_id = ?", [meta.scanId]);
      if (scan && scan.status !== "running") throw new ScanTakenOver(meta.scanId, scan.status);
      const existing = await rowsById(tx, [...new Set(candidates.map((c) => c.signalId))]);
      const open: OpenRow[] = [];
      for (const type of typesRan) {
        open.push(
          ...(await tx.all<OpenRow>(
            "SELECT signal_id, signal_type, entities, score, severity, qualification, data_as_of FROM signals WHERE signal_type = ? AND ended_at IS NULL AND data_as_of < ?",
            [type, meta.asOf],
          )),
        );
      }
      const { counts, writes } = decide(meta, candidates, existing, open);
      await tx.batch(writes);
      return counts;
    },
    { lock: "signals" },
  );
}

/** An open signal of a type the scan ran: what ending it needs (its event carries its standing). */
type OpenRow = Pick<SignalRow, "signal_id" | "signal_type" | "entities" | "score" | "severity" | "qualification" | "data_as_of">;

/** The moves of one scan and the writes that record them (its events in the outbox too), from the rows they start from. */
function decide(
  meta: ScanMeta,
  candidates: IdentifiedCandidate[],
  existing: Map<string, SignalRow>,
  open: OpenRow[],
): { counts: ApplyCounts; writes: Statement[] } {
  const events = new SignalEvents(meta);
  const counts: ApplyCounts = { new: 0, updated: 0, unchanged: 0, moves: {}, ended: 0, by_qualification: {} };
  const moves: SqlValue[][] = [];
  const inserted: SqlValue[][] = [];
  const updates: Statement[] = [];
  const links: SqlValue[][] = [];
  const touched: string[] = [];
  const corroboration = corroborator(candidates);
  const state = new Map<string, Qualification>();

  const move = (id: string, from: Qualification | null, to: Qualification, reason: string): Qualification => {
    moves.push([id, meta.now, from, to, reason, meta.scanId]);
    counts.moves[to] = (counts.moves[to] ?? 0) + 1;
    return to;
  };
  /** pending | rejected -> screened, and on to qualified when corroborated in this scan. */
  const screen = (c: IdentifiedCandidate, from: Qualification, reason: string): Qualification => {
    move(c.signalId, from, "screened", reason);
    const why = c.detector.derived ? derivedCorroboration(c, state) : corroboration(c);
    return why ? move(c.signalId, "screened", "qualified", why) : "screened";
  };

  // Derived types last: their corroboration reads the states the others reached in this scan.
  const ordered = [...candidates.filter((c) => !c.detector.derived), ...candidates.filter((c) => c.detector.derived)];
  for (const c of ordered) {
    const row = existing.get(c.signalId);
    const screens = c.failed.length === 0 ? "passed its screens (fresh data, above the size floor, no duplicate)" : `failed screens: ${c.failed.join(", ")}`;
    if (row && row.data_as_of >= meta.asOf) {
      // The same data again (or older): nothing changes but when it was last seen.
      touched.push(c.signalId);
      state.set(c.signalId, row.qualification);
      counts.unchanged++;
      continue;
    }
    let current: Qualification = row ? row.qualification : move(c.signalId, null, "pending", `detected by scan ${meta.scanId} on data as of ${meta.asOf}`);
    if (c.failed.length > 0) {
      if (current !== "rejected") current = move(c.signalId, current, "rejected", screens);
    } else if (current === "pending" || current === "rejected") {
      current = screen(c, current, row ? `${screens} on data as of ${meta.asOf}` : screens);
    } else if (current === "screened") {
      current = move(c.signalId, current, "qualified", `seen again by scan ${meta.scanId} on data as of ${meta.asOf} (first found on data as of ${row!.episode_start})`);
    }
    state.set(c.signalId, current);
    const content = [JSON.stringify(c.uris), c.score, c.severity, JSON.stringify(c.evidence)];
    const standing = { signal_id: c.signalId, signal_type: c.detector.slug, entities: content[0] as string, score: c.score, severity: c.severity, qualification: current, data_as_of: meta.asOf };
    if (!row) events.add("signal.new", standing);
    else if (standingChanged(row, standing)) events.add("signal.updated", standing);
    if (row) {
      counts.updated++;
      updates.push({
        sql: "UPDATE signals SET entities = ?, score = ?, severity = ?, evidence = ?, qualification = ?, updated_at = ?, seen_at = ?, data_as_of = ? WHERE signal_id = ?",
        params: [...content, current, meta.now, meta.now, meta.asOf, c.signalId],
      });
    } else {
      counts.new++;
      inserted.push([c.signalId, c.detector.slug, c.key, ...content, current, meta.now, meta.now, meta.now, c.episodeStart, meta.asOf]);
    }
    for (const uri of new Set(c.uris)) links.push([c.signalId, uri]);
  }

  // Episodes that a scan on newer data no longer finds end; unconfirmed ones expire.
  const ended: string[] = [];
  const expired: string[] = [];
  for (const row of open) {
    if (state.has(row.signal_id)) continue;
    ended.push(row.signal_id);
    counts.ended++;
    const expires = row.qualification === "pending" || row.qualification === "screened";
    if (expires) {
      expired.push(row.signal_id);
      move(row.signal_id, row.qualification, "rejected", `expired unconfirmed: not found by scan ${meta.scanId} on data as of ${meta.asOf}`);
    }
    events.add("signal.ended", { ...row, qualification: expires ? "rejected" : row.qualification });
  }
  for (const q of state.values()) counts.by_qualification[q] = (counts.by_qualification[q] ?? 0) + 1;

  const SIGNAL_COLUMNS = ["signal_id", "signal_type", "key", "entities", "score", "severity", "evidence", "qualification", "created_at", "updated_at", "seen_at", "episode_start", "data_as_of"];
  const writes: Statement[] = [
    // Signals before what refers to them (links and moves name their signal).
    ...insertRows("signals", SIGNAL_COLUMNS, inserted),
    ...updates,
    ...updateEach("seen_at = ?", [meta.now], touched),
    ...updateEach("ended_at = ?, updated_at = ?", [meta.now, meta.now], ended),
    ...updateEach("qualification = 'rejected'", [], expired),
    ...insertRows("signal_entities", ["signal_id", "entity_uri"], links, "ON CONFLICT DO NOTHING"),
    // In the order they were decided: a signal's moves are read back by id.
    ...insertRows("signal_moves", ["signal_id", "at", "from_state", "to_state", "reason", "scan_id"], moves),
    ...events.writes(),
  ];
  return { counts, writes };
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
