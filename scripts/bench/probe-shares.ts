/**
 * How recall moves with the share of inverted lists a question scans (list-probe.ts PROBE_SHARES).
 * Run by hand:
 *   bun scripts/bench/probe-shares.ts [--data-dir /tmp/ckg-full-final] [--shares 0.02,0.04,0.08,0.15]
 *
 * For each share, the types with lists are opened scanning that share of their lists (at least
 * list-probe's MIN_PROBED_ROWS rows), and recall@10 of the 73 meaning questions' vectors against
 * exact search is printed per type, as scripts/bench/search.ts measures it. A type's share in
 * PROBE_SHARES is the least whose recall stays at 0.95 or more with a margin.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { EntityType } from "../../src/entities/vocabulary.ts";
import { LsaEmbedder } from "../../src/search/embedder.ts";
import { IVF_MIN_ROWS } from "../../src/search/ivf.ts";
import { loadLsa } from "../../src/search/lsa.ts";
import { VectorIndexes } from "../../src/search/vector-index.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { meaningQuestions, recallByType } from "./search-index.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({
  options: {
    "data-dir": { type: "string", default: "/tmp/ckg-full-final" },
    shares: { type: "string", default: "0.02,0.03,0.04,0.06,0.08,0.1,0.15,0.2" },
  },
});
const dir = dataDir(values["data-dir"]!);
const snapshotDir = snapshotPath(dir, currentSnapshotId(dir)!);
const manifest = readManifest(snapshotDir);
const searchDir = join(snapshotDir, manifest.search.dir);
const listed = (Object.entries(manifest.search.counts) as [EntityType, number][]).filter(([, count]) => count >= IVF_MIN_ROWS).map(([type]) => type);
const embedder = new LsaEmbedder(loadLsa(searchDir));
const questions = await Promise.all(meaningQuestions().map((q) => embedder.embedQuery(q.query)));
const rows: [string, string][] = [];
for (const share of values.shares!.split(",").map(Number)) {
  const vectors = await VectorIndexes.open(searchDir, listed, manifest.search.dims, { probeShare: share });
  try {
    const recall = await recallByType(searchDir, manifest.search.dims, questions, async (query, type) => (listed.includes(type) ? (await vectors.search(query, 10, [type])).map((h) => h.row) : []));
    rows.push([`${(share * 100).toFixed(1)}% of lists`, listed.map((type) => `${type} ${recall.get(type)!.toFixed(3)}`).join(", ")]);
  } finally {
    vectors.close();
  }
}
printTable(`recall@10 of the ${questions.length} meaning questions against exact search, by share of lists scanned`, rows);
process.exit(0);
