/**
 * @module log
 * Structured logs: one JSON line per event (pino). `serve` writes to stdout; other commands write to
 * stderr so their stdout stays clean for results.
 */
import pino from "pino";

export type Logger = pino.Logger;
export type LogLevel = pino.LevelWithSilent;

/** How long a log line may wait in the buffer before it is written. */
const FLUSH_INTERVAL_MS = 250;

export function createLogger(level: LogLevel, fd: 1 | 2 = 1): Logger {
  // A write per line costs a system call per request; lines are batched (up to 4 KiB or 250 ms).
  // stderr (CLI commands) stays unbuffered so progress shows at once.
  const destination = pino.destination(fd === 2 ? { fd, sync: true } : { fd, sync: false, minLength: 4096 });
  if (fd === 1) setInterval(() => destination.flush(), FLUSH_INTERVAL_MS).unref();
  return pino(
    {
      level,
      base: { service: "ckg", pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Secrets never reach a log line, whatever a caller passes in.
      redact: { paths: ["*.settlement_key", "*.api_key", "*.authorization"], censor: "(hidden)" },
    },
    destination,
  );
}

/** A logger that writes nothing: tests and library callers that do not care. */
export const silentLogger: Logger = pino({ level: "silent" });
