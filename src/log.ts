/**
 * @module log
 * Structured logs: one JSON line per event (pino). `serve` writes to stdout; other commands write to
 * stderr so their stdout stays clean for results.
 */
import pino from "pino";

export type Logger = pino.Logger;
export type LogLevel = pino.LevelWithSilent;

export function createLogger(level: LogLevel, fd: 1 | 2 = 1): Logger {
  return pino(
    {
      level,
      base: { service: "ckg", pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      // Secrets never reach a log line, whatever a caller passes in.
      redact: { paths: ["*.settlement_key", "*.api_key", "*.authorization"], censor: "(hidden)" },
    },
    pino.destination({ fd, sync: fd === 2 }),
  );
}

/** A logger that writes nothing: tests and library callers that do not care. */
export const silentLogger: Logger = pino({ level: "silent" });
