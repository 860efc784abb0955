/**
 * The one way tests wait: on a state they can observe (a log line, a status, a file, an answer),
 * never on a fixed time. `probe` is asked again and again until it gives a value; the deadline only
 * bounds how long that may take, and when it passes the error says what was waited for (and what
 * was last seen, when the caller can describe it), so a slow machine fails with a reason instead of
 * a blind timeout.
 */

/** What a probe gives while the state is not there yet. */
type NotYet = undefined | null | false;

export interface UntilOptions {
  /** How often to look again (ms). Short: a probe is cheap next to what is waited on. */
  every?: number;
  /** What the state was when the deadline passed, for the error. */
  seen?: () => unknown;
}

export async function until<T>(what: string, ms: number, probe: () => T | NotYet | Promise<T | NotYet>, options: UntilOptions = {}): Promise<T> {
  const deadline = performance.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (performance.now() > deadline) {
      const seen = options.seen ? `; last seen: ${describe(options.seen())}` : "";
      throw new Error(`timed out after ${ms} ms waiting for ${what}${seen}`);
    }
    await Bun.sleep(options.every ?? 25);
  }
}

function describe(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 2000 ? `${text.slice(0, 2000)}...` : text;
}
