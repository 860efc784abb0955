/**
 * Where the embedded graph store stops (how many quads one store holds before a load fails). Run by
 * hand:
 *   bun scripts/bench/graph-ceiling.ts --nq <snapshot>/graph.nq [--step 1000000]
 *
 * Loads N-Quads into one in-process Oxigraph store (the WebAssembly build the graph processes run,
 * its memory capped at 4 GiB) in steps of `--step` quads, the file again and again with its entity
 * IRIs renamed on each later pass so every quad is new, until a load fails; prints the quads held
 * after each step, the time per million and the process RSS, then the last size that loaded and the
 * error that stopped it. The floor it measures is the store's own: nothing of ckg is in the way.
 */
import { parseArgs } from "node:util";
import { oxigraph } from "../../src/graph/oxigraph.ts";

const { values } = parseArgs({ options: { nq: { type: "string" }, step: { type: "string", default: "1000000" }, "max-passes": { type: "string", default: "6" } } });
if (!values.nq) throw new Error("--nq <graph.nq> is required");
const step = Number(values.step);
const store = new oxigraph.Store();
const mb = () => Math.round(process.memoryUsage().rss / 2 ** 20);

/** The file's lines in batches of `step`, entity IRIs renamed for pass > 0. */
async function* batches(pass: number): AsyncGenerator<string> {
  const rename = pass === 0 ? (line: string) => line : (line: string) => line.replaceAll("<https://ckg.example/id/", `<https://ckg.example/id/p${pass}/`);
  let lines: string[] = [];
  let rest = "";
  for await (const chunk of Bun.file(values.nq!).stream().pipeThrough(new TextDecoderStream())) {
    const parts = (rest + chunk).split("\n");
    rest = parts.pop()!;
    for (const line of parts) {
      if (line) lines.push(rename(line));
      if (lines.length === step) {
        yield lines.join("\n");
        lines = [];
      }
    }
  }
  if (rest) lines.push(rename(rest));
  if (lines.length > 0) yield lines.join("\n");
}

let last = 0;
try {
  for (let pass = 0; pass < Number(values["max-passes"]); pass++) {
    for await (const text of batches(pass)) {
      const t0 = performance.now();
      store.load(text, { format: "application/n-quads", lenient: true, no_transaction: true });
      last = store.size;
      console.log(`pass ${pass}: ${last.toLocaleString()} quads, ${((performance.now() - t0) / 1000).toFixed(1)} s for this step, RSS ${mb().toLocaleString()} MB`);
    }
  }
  console.log(`loaded everything asked: ${last.toLocaleString()} quads (raise --max-passes to go on)`);
} catch (error) {
  console.log(`the store stopped after ${last.toLocaleString()} quads (RSS ${mb().toLocaleString()} MB): ${(error as Error).message}`);
}
