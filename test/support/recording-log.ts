/**
 * A real pino logger whose lines are kept in memory: tests read what the code under test decided
 * (how long a retry waits, which request it was) from its own log lines, instead of timing it.
 */
import pino from "pino";
import type { Logger } from "../../src/log.ts";

export interface RecordingLog {
  log: Logger;
  lines: Record<string, unknown>[];
}

export function recordingLog(): RecordingLog {
  const lines: Record<string, unknown>[] = [];
  const log = pino({ level: "debug" }, { write: (text: string) => void lines.push(JSON.parse(text) as Record<string, unknown>) });
  return { log, lines };
}
