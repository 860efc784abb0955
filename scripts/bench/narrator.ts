/**
 * The narrator's worst case per scan (an endpoint that never answers must not hold the scan). Run
 * by hand:
 *   bun scripts/bench/narrator.ts [--data-dir DIR] [--timeout-ms N] [--budget-ms N]
 *
 * Builds the default world when the data directory has no snapshot, starts an OpenAI-compatible
 * endpoint on 127.0.0.1 that accepts every request and never answers, and runs one real scan of
 * every type with that endpoint configured (the settings' defaults unless given). Prints the number
 * of narratives, the calls the endpoint received, how the narratives were written, and the narration's
 * wall time beside the old behaviour's projection: before, each of up to 200 calls waited out a 30 s
 * time limit, one after another. Then the same scan with an endpoint that answers at once with the
 * template's own text: how many answers the figure check keeps, and what narration costs then.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SETTINGS } from "../../src/config/settings.ts";
import { createLogger } from "../../src/log.ts";
import type { Brief, Narrator } from "../../src/signals/narratives.ts";
import { BREAKER_FAILURES, MAX_CALLS, narratorFor } from "../../src/signals/narrator.ts";
import { runScan } from "../../src/signals/scan.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { openSqliteState } from "../../src/store/state-sqlite.ts";

/** The time limit and the cap of one scan's calls before the narrator had a budget (cli/scan.ts passed them). */
const OLD_TIMEOUT_MS = 30_000;
const OLD_MAX_CALLS = 200;

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-bench-narrator" },
    "timeout-ms": { type: "string", default: String(SETTINGS.narrative_timeout_ms.default) },
    "budget-ms": { type: "string", default: String(SETTINGS.narrative_budget_ms.default) },
  },
});
const timeoutMs = Number(values["timeout-ms"]);
const budgetMs = Number(values["budget-ms"]);
const dir = dataDir(values["data-dir"]!);
const log = createLogger("error", 2);
if (!currentSnapshotId(dir)) await buildSnapshot({ dir, scale: "default", seed: 42, ontologyNs: "https://ckg.example/ontology#", log });

let calls = 0;
const held: (() => void)[] = [];
const hanging = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch() {
    calls++;
    return new Promise<Response>((resolve) => held.push(() => resolve(new Response("late"))));
  },
});
/** Answers at once with the draft it is sent (the template's text): every figure in it is backed. */
const echo = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const body = (await request.json()) as { messages: { content: string }[] };
    const { subject, draft } = JSON.parse(body.messages[1]!.content) as { subject: string; draft: string };
    return Response.json({ choices: [{ message: { content: `Briefing on ${subject}\n${draft}` } }] });
  },
});

/** The real narrator, timed from the first narrative it is given to the last it gives back. */
class Timed implements Narrator {
  ms = 0;
  constructor(private readonly inner: Narrator) {}
  async writeAll(briefs: readonly Brief[]) {
    const started = performance.now();
    try {
      return await this.inner.writeAll(briefs);
    } finally {
      this.ms += performance.now() - started;
    }
  }
}

const scratch = mkdtempSync(join(tmpdir(), "ckg-bench-narrator-"));
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** One real scan into a scratch state with the endpoint at `port`; how its narratives were written. */
async function scanWith(name: string, port: number) {
  const state = openSqliteState(join(scratch, `${name}.sqlite`));
  try {
    const narrator = new Timed(narratorFor({ url: `http://127.0.0.1:${port}/v1`, model: "bench", timeoutMs, budgetMs }, log));
    const report = await runScan({ state, dir, narrator, log, trigger: "bench" });
    const rows = await state.all<{ fallback: string | null }>("SELECT json_extract(evidence, '$.fallback') AS fallback FROM signals WHERE signal_type = 'narrative-synthesis'");
    const written = new Map<string, number>();
    for (const { fallback } of rows) written.set(fallback ?? "endpoint's text kept", (written.get(fallback ?? "endpoint's text kept") ?? 0) + 1);
    console.log(`scan as of ${report.as_of}: ${report.status}, ${report.types.reduce((n, t) => n + t.found, 0)} signals in ${s(report.duration_ms)}`);
    console.log(`narratives: ${rows.length}; written: ${[...written].map(([k, n]) => `${k} ${n}`).join(", ")}`);
    return { narratives: rows.length, ms: narrator.ms };
  } finally {
    await state.close();
  }
}

try {
  console.log(`endpoint that accepts every request and never answers (127.0.0.1:${hanging.port})`);
  const { narratives, ms } = await scanWith("hanging", hanging.port!);
  const oldCalls = Math.min(narratives, OLD_MAX_CALLS);
  console.log(`before: ${oldCalls} calls (at most ${OLD_MAX_CALLS}) x ${s(OLD_TIMEOUT_MS)} time limit, one after another = ${s(oldCalls * OLD_TIMEOUT_MS)} (${(oldCalls * OLD_TIMEOUT_MS / 60_000).toFixed(0)} min), projected`);
  console.log(`after:  ${calls} calls (breaker after ${BREAKER_FAILURES} failures in a row; time limit ${s(timeoutMs)}, budget ${s(budgetMs)}, at most ${MAX_CALLS} calls): narration took ${s(ms)}, measured`);
  console.log(`        bound for any endpoint: the budget, ${s(budgetMs)}; for one that never answers: min(budget, ${BREAKER_FAILURES} x time limit) = ${s(Math.min(budgetMs, BREAKER_FAILURES * timeoutMs))}`);
  console.log(`ratio before / after: ${((oldCalls * OLD_TIMEOUT_MS) / ms).toFixed(0)}x`);
  console.log("");
  console.log(`endpoint that answers at once with the template's text (127.0.0.1:${echo.port})`);
  const faithful = await scanWith("echo", echo.port!);
  console.log(`narration (calls and figure checks) took ${s(faithful.ms)}, ${(faithful.ms / faithful.narratives).toFixed(1)} ms a narrative`);
} finally {
  for (const release of held) release();
  hanging.stop(true);
  echo.stop(true);
  rmSync(scratch, { recursive: true, force: true });
}
