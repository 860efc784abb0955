/**
 * Entity-resolution bench (against the labelled set of real identities). Run by hand:
 *   bun scripts/bench/resolve.ts [--data-dir DIR]   (default: a fresh default-scale build)
 *
 * Imports the labelled set of real identities (test/ingest/identities.json: CoinGecko ids with
 * their Ethereum contracts, chains' own coins, DefiLlama stablecoins and chain names current and
 * former, chain-list chain ids) onto a copy of the data directory with the real ingest, and prints
 * precision and recall of the resolver by kind, the keys it missed, and the duplicates it leaves
 * (as `ckg stats --duplicates` counts them).
 */
import { cpSync } from "node:fs";
import { parseArgs } from "node:util";
import { createLogger } from "../../src/log.ts";
import { buildSnapshot } from "../../src/snapshot/build.ts";
import { currentSnapshotId, dataDir } from "../../src/store/data-dir.ts";
import { measureResolution } from "../../test/ingest/entity-resolution.ts";
import { tempDir } from "../../test/support/temp-dirs.ts";
import { printTable } from "./stats.ts";

const { values } = parseArgs({ options: { "data-dir": { type: "string" } } });
const log = createLogger("warn", 2);
const root = tempDir("ckg-bench-resolve-");
if (values["data-dir"] && currentSnapshotId(dataDir(values["data-dir"]))) cpSync(values["data-dir"], root, { recursive: true });
else await buildSnapshot({ dir: dataDir(root), scale: "default", seed: 42, ontologyNs: "https://ckg.example/ontology#", log });

const started = performance.now();
const score = await measureResolution(root, log);
const pct = (x: number) => x.toFixed(3);
printTable(`Entity resolution on ${score.keys} labelled provider keys (import and resolve: ${((performance.now() - started) / 1000).toFixed(1)} s)`, [
  ["precision (right entity among keys merged onto an existing one)", pct(score.precision)],
  ["recall (keys on their one expected entity)", pct(score.recall)],
  ["false merges (onto another existing entity)", String(score.wrong)],
  ["splits (a new entity beside the expected one)", String(score.split)],
  ...Object.entries(score.byKind).map(([kind, k]): [string, string] => [`  ${kind} (${k.keys})`, `recall ${pct(k.correct / k.keys)}`]),
  ["duplicates left (ckg stats --duplicates groups)", String(score.duplicates.groups.length)],
]);
for (const miss of score.misses) console.log(`  miss: ${miss.kind} ${miss.key} -> ${miss.got ?? "none"} (expected ${miss.expected ?? "unknown"}, ${miss.outcome})`);
for (const g of score.duplicates.groups) console.log(`  duplicate: ${g.reason} ${g.value}: ${g.members.map((m) => m.id).join(", ")}`);
process.exit(0);
