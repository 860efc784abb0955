/**
 * Search quality on the default data directory (the world `npm start` builds): the labelled query
 * set, asked over HTTP, scored against relevance rules evaluated on the snapshot. The floors sit a
 * little below what the current index measures (scripts/bench/search.ts prints the figures), so a
 * change that makes search worse fails here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { createApp } from "../../src/api/app.ts";
import { silentLogger } from "../../src/log.ts";
import type { SearchAnswer } from "../../src/search/search.ts";
import { Services } from "../../src/services.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { copyOf, defaultWorldDataDir, testConfig } from "../support/fixture.ts";
import { type Quality, judge, labelledQueries, scoreQuery, summarize } from "./labelled-set.ts";

const FLOORS = { recallAt10: 0.82, mrr: 0.88 };
const KIND_FLOORS: Record<string, { recallAt10: number; mrr: number }> = {
  name: { recallAt10: 0.95, mrr: 0.9 },
  symbol: { recallAt10: 0.95, mrr: 0.95 },
  typo: { recallAt10: 0.7, mrr: 0.85 },
  meaning: { recallAt10: 0.65, mrr: 0.75 },
  filter: { recallAt10: 0.8, mrr: 0.8 },
};
/** The free-text questions the search issue names: each must find fitting entities in its top 10. */
const NAMED_QUESTIONS = [
  "liquid staking on ethereum",
  "decentralized exchange on solana",
  "lending protocol with high utilization",
  "venture fund investing in DeFi",
];

let root: string;
let services: Services;
let quality: Quality;

beforeAll(async () => {
  root = copyOf(await defaultWorldDataDir());
  const built = { path: snapshotPath(dataDir(root), currentSnapshotId(dataDir(root))!) };
  services = await Services.open(testConfig({ data_dir: root }), silentLogger);
  await services.start();
  const app = createApp(services, { baseUrl: "http://127.0.0.1:8402" });
  const queries = labelledQueries();
  const relevant = await judge(services.duck, built.path, queries);
  const scores = [];
  for (const [i, q] of queries.entries()) {
    const response = await app.handle(
      new Request("http://127.0.0.1:8402/api/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: q.query, entity_types: q.entity_types }),
      }),
    );
    expect(response.status).toBe(200);
    scores.push(scoreQuery(q, relevant[i]!, (await response.json()) as SearchAnswer));
  }
  quality = summarize(scores);
});

afterAll(async () => {
  await services?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("search quality on the default data (labelled query set)", () => {
  test("the set has at least 50 queries of every kind, each with relevant entities in this world", () => {
    expect(quality.scores.length).toBeGreaterThanOrEqual(50);
    expect(Object.keys(quality.byKind).sort()).toEqual(Object.keys(KIND_FLOORS).sort());
    const empty = quality.scores.filter((s) => s.relevant === 0).map((s) => s.query.query);
    expect(empty).toEqual([]);
  });

  test("recall@10 and MRR stay above their floors, overall and per kind of query", () => {
    const report = { recallAt10: quality.recallAt10, mrr: quality.mrr, byKind: quality.byKind };
    expect(quality.recallAt10, JSON.stringify(report)).toBeGreaterThanOrEqual(FLOORS.recallAt10);
    expect(quality.mrr, JSON.stringify(report)).toBeGreaterThanOrEqual(FLOORS.mrr);
    for (const [kind, floor] of Object.entries(KIND_FLOORS)) {
      expect(quality.byKind[kind]!.recallAt10, kind).toBeGreaterThanOrEqual(floor.recallAt10);
      expect(quality.byKind[kind]!.mrr, kind).toBeGreaterThanOrEqual(floor.mrr);
    }
  });

  test.each(NAMED_QUESTIONS)("%p finds fitting entities", (question) => {
    const score = quality.scores.find((s) => s.query.query === question);
    expect(score, `${question} is in the labelled set`).toBeDefined();
    expect(score!.reciprocalRank, score!.top.join(" | ")).toBeGreaterThan(0);
  });
});
