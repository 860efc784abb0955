/**
 * @module signals/identity
 * docs/decisions/0003-deterministic-signal-id.md: a signal_id is a hash of (signal_type, sorted
 * entity URIs, detection window), so a rescan updates the same signal. The window is the episode:
 * it starts on the as-of date of the scan that first found the signal and lasts while scans keep
 * finding it, so the same anomaly keeps one id day after day, and a new one after it has gone away
 * and come back.
 */
import { createHash } from "node:crypto";

/** The identity of a finding within its type: the sorted entity URIs unless the detector names one. */
export function signalKey(uris: string[], explicit?: string): string {
  return explicit ?? [...uris].sort().join(" ");
}

export function signalId(type: string, key: string, episodeStart: string): string {
  return `sig_${createHash("sha256").update(`${type}\n${key}\n${episodeStart}`).digest("hex").slice(0, 24)}`;
}
