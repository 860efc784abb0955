/**
 * @module snapshot/stage
 * A build's stages timed: each logs "build stage done" with its own time, so a slow build says
 * where its time went (scripts/bench/build.ts reads these lines beside the process's RSS and CPU).
 */
import type { Logger } from "../log.ts";

export async function stage<T>(log: Logger, name: string, run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  log.info({ stage: name, ms: Math.round(performance.now() - started) }, "build stage done");
  return result;
}

/**
 * Both results, or the first failure once neither is still running: a failed build removes its
 * staging folder, which a task still writing into would then fail on, or fill again.
 */
export async function sideBySide<A, B>(tasks: [Promise<A>, Promise<B>]): Promise<[A, B]> {
  const [a, b] = await Promise.allSettled(tasks);
  if (a.status === "rejected") throw a.reason;
  if (b.status === "rejected") throw b.reason;
  return [a.value, b.value];
}
