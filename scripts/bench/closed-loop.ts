/**
 * A closed-loop load driver for the benchmarks: `clients` loops, each sending its next request as
 * soon as the last one answered, for a fixed time. The same driver measures ckg over HTTP and
 * PostgreSQL over its own connections, so the two figures are comparable.
 */
import { percentile } from "./stats.ts";

export interface LoadResult {
  clients: number;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function runLoad(options: { clients: number; seconds: number; warmupSeconds?: number; request: (i: number) => Promise<void> }): Promise<LoadResult> {
  const run = async (seconds: number) => {
    const latencies: number[] = [];
    let errors = 0;
    let next = 0;
    const started = performance.now();
    const end = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (performance.now() < end) {
          const i = next++;
          const start = performance.now();
          try {
            await options.request(i);
            latencies.push(performance.now() - start);
          } catch {
            errors++;
          }
        }
      }),
    );
    return { latencies, errors, elapsed: (performance.now() - started) / 1000 };
  };
  if (options.warmupSeconds) await run(options.warmupSeconds);
  const { latencies, errors, elapsed } = await run(options.seconds);
  return {
    clients: options.clients,
    requests: latencies.length,
    errors,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}
