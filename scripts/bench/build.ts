/**
 * Build benchmark (issue 36, point 4). Run by hand, under the bench lock:
 *   flock /tmp/ckg-bench.lock bun scripts/bench/build.ts [--data-dir DIR] [--scale full] [--keep]
 *
 * Runs `ckg build` into a fresh data directory (removed afterwards unless --keep) and samples the
 * build process every 100 ms (/proc: RSS, CPU time). Prints each stage the build logs ("build stage
 * done": world, series, search index, query database, entities, facts, changes, graph tables,
 * graph dump) with its start, its own time, the peak RSS and the cores used while it ran; then the
 * wall time and peak RSS of the whole build (getrusage) beside the issue's budget (180 s, 4 GiB),
 * and the sum of the stages' own times beside the wall time (what running stages side by side saved).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { selfCommand } from "../../src/runtime.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    scale: { type: "string", default: "full" },
    keep: { type: "boolean", default: false },
  },
});
const BUDGET_SECONDS = 180;
const BUDGET_BYTES = 4 * 2 ** 30;
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const root = values["data-dir"] ?? mkdtempSync(join(tmpdir(), "ckg-bench-build-"));
const child = Bun.spawn(selfCommand("build", "--scale", values.scale!, "--data-dir", root, "--log-level", "debug"), {
  stdin: "ignore",
  stdout: "pipe",
  stderr: "pipe",
});
const startedAt = performance.now();

/** One sample of the build process: seconds since start, RSS bytes, CPU seconds so far. */
interface Sample {
  at: number;
  rss: number;
  cpu: number;
}
const samples: Sample[] = [];
const sampler = setInterval(() => {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    samples.push({
      at: (performance.now() - startedAt) / 1000,
      rss: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024,
      cpu: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
    });
  } catch {} // the process has ended
}, 100);

/** A stage as the build logged it: when it ended (seconds since start) and its own time. */
interface Stage {
  name: string;
  end: number;
  seconds: number;
}
const stages: Stage[] = [];
let stderr = "";
const stderrRead = (async () => {
  let buffer = "";
  for await (const chunk of child.stderr) {
    buffer += new TextDecoder().decode(chunk);
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      stderr += `${text}\n`;
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text) as { msg?: string; stage?: string; ms?: number };
      if (line.msg === "build stage done") stages.push({ name: line.stage!, end: (performance.now() - startedAt) / 1000, seconds: line.ms! / 1000 });
    }
  }
})();
const stdout = await new Response(child.stdout).text();
const exitCode = await child.exited;
await stderrRead;
clearInterval(sampler);
const wallSeconds = (performance.now() - startedAt) / 1000;
if (exitCode !== 0) {
  console.error(stderr.slice(-4000));
  throw new Error(`ckg build exited with ${exitCode}`);
}
const usage = child.resourceUsage()!;
const peakBytes = usage.maxRSS;

const gib = (bytes: number) => (bytes / 2 ** 30).toFixed(2);
/** Peak RSS and cores used between two instants (seconds since start). */
function during(from: number, to: number): { peak: number; cores: number } {
  const inside = samples.filter((s) => s.at >= from && s.at <= to);
  if (inside.length < 2) return { peak: inside[0]?.rss ?? Number.NaN, cores: Number.NaN };
  const first = inside[0]!;
  const last = inside.at(-1)!;
  return { peak: Math.max(...inside.map((s) => s.rss)), cores: (last.cpu - first.cpu) / (last.at - first.at) };
}

const rows: [string, string][] = [["stage", "start s   own s   peak RSS GiB   cores"]];
for (const stage of [...stages].sort((a, b) => a.end - a.seconds - (b.end - b.seconds))) {
  const start = stage.end - stage.seconds;
  const { peak, cores } = during(start, stage.end);
  rows.push([stage.name, `${start.toFixed(1).padStart(7)} ${stage.seconds.toFixed(1).padStart(7)}   ${gib(peak).padStart(12)}   ${cores.toFixed(2).padStart(5)}`]);
}
const stageSum = stages.reduce((sum, s) => sum + s.seconds, 0);
const cpuSeconds = Number(usage.cpuTime.total) / 1e6;
rows.push(["", ""]);
rows.push(["wall time (s) / budget 180 s", `${wallSeconds.toFixed(1)} / ${BUDGET_SECONDS} = ${(wallSeconds / BUDGET_SECONDS).toFixed(2)}`]);
rows.push(["peak RSS (GiB, getrusage) / budget 4 GiB", `${gib(peakBytes)} / 4.00 = ${(peakBytes / BUDGET_BYTES).toFixed(2)}`]);
rows.push(["CPU time (s) / wall: cores used", `${cpuSeconds.toFixed(0)} / ${wallSeconds.toFixed(0)} = ${(cpuSeconds / wallSeconds).toFixed(2)}`]);
rows.push(["stages' own times summed / wall (overlap)", `${stageSum.toFixed(1)} / ${wallSeconds.toFixed(1)} = ${(stageSum / wallSeconds).toFixed(2)}`]);
rows.push(["build's own line", stdout.trim().split("\n")[0] ?? ""]);
printTable(`ckg build --scale ${values.scale}`, rows);
if (!values.keep && !values["data-dir"]) rmSync(root, { recursive: true, force: true });
