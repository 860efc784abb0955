import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { FetchContext } from "../../src/ingest/connector.ts";
import type { ProviderHttp } from "../../src/ingest/http.ts";
import { snapshotOrg as snapshot } from "../../src/ingest/providers/snapshot-org/index.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput } from "../../src/ingest/records.ts";
import { silentLogger } from "../../src/log.ts";
import { testFetchContext } from "../support/fetch-context.ts";
import { type Fault, type Route, startFakeProvider } from "../support/fake-provider.ts";
import { haveRecording, readRecording, skipWithout } from "../support/shared-recordings.ts";
import { tempDir } from "../support/temp-dirs.ts";

const FIXTURES = join(import.meta.dir, "fixtures", "snapshot-org");
const fixture = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as T;

type Json = Record<string, unknown>;
const SPACES = fixture<{ data: { spaces: Json[] } }>("spaces.json").data.spaces;
const RANKING = fixture<{ data: { ranking: { items: Json[] } } }>("ranking.json").data.ranking.items;
const PROPOSALS = fixture<{ data: { proposals: Json[] } }>("proposals.json").data.proposals;
/** Recorded by snapshot-sidekick, read in place (../shared/real-api/third-party/snapshot/votes). */
const VOTES = "third-party/snapshot/votes";
/** A proposal's recorded votes (snapshot-sidekick's recordings of the hub), or undefined. */
function recordedVotes(proposal: string): Json[] | undefined {
  const file = `${VOTES}/${proposal}.json`;
  return haveRecording(file) ? readRecording<{ data: { votes: Json[] } }>(file).data.votes : undefined;
}
const PROTOCOLS = fixture<Json[]>("defillama-protocols.json");

const TODAY = "2024-07-01";
const unix = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const UNI = "Organization:snapshot:uniswapgovernance.eth";
const AAVE = "Organization:snapshot:aavedao.eth";
const proposalKey = (id: string) => `GovernanceProposal:snapshot:${id}`;

const root = tempDir("ckg-snapshot-");
let dirs = 0;

interface GraphqlBody {
  query: string;
  variables: Record<string, unknown>;
}

/** The hub's GraphQL endpoint over the fixtures: filters, orders and pages as the hub does. */
function hub(options: { proposals?: Json[]; bodies: GraphqlBody[]; fail?: (body: GraphqlBody) => Response | undefined }): Route {
  const proposals = options.proposals ?? PROPOSALS;
  return (url, request, raw) => {
    if (url.pathname !== "/graphql" || request.method !== "POST") return undefined;
    const body = raw as GraphqlBody;
    options.bodies.push(body);
    const failure = options.fail?.(body);
    if (failure) return failure;
    const v = body.variables;
    const first = Number(v.first ?? 20);
    const skip = Number(v.skip ?? 0);
    if (body.query.includes("proposals(")) {
      const spaces = v.spaces as string[];
      const list = proposals
        .filter((p) => spaces.includes((p.space as { id: string }).id))
        .filter((p) => v.from === undefined || Number(p.created) >= Number(v.from))
        .filter((p) => v.before === undefined || Number(p.created) < Number(v.before))
        .filter((p) => v.endFrom === undefined || typeof p.end !== "number" || p.end >= Number(v.endFrom))
        .sort((a, b) => Number(a.created) - Number(b.created));
      return { data: { proposals: list.slice(skip, skip + first) } };
    }
    if (body.query.includes("ranking(")) return { data: { ranking: { items: RANKING.slice(skip, skip + first) } } };
    if (body.query.includes("votes(")) {
      // Recorded votes (shared/real-api/third-party/snapshot/votes) for their proposals, none for the others.
      const votes = (recordedVotes(String(v.proposal)) ?? []).filter((vote) => Number(vote.created) >= Number(v.from)).sort((a, b) => Number(a.created) - Number(b.created));
      return { data: { votes: votes.slice(0, first) } };
    }
    if (body.query.includes("spaces(")) {
      const ids = v.ids as string[];
      return { data: { spaces: SPACES.filter((s) => ids.includes(s.id as string)).slice(0, first) } };
    }
    return Response.json({ errors: [{ message: "Unknown query" }] }, { status: 400 });
  };
}

function context(api: string, raw: RawStore, options: { detailLimit?: number; since?: Record<string, string> } = {}): ReturnType<typeof testFetchContext> {
  return testFetchContext("snapshot", raw, { urls: { api: `${api}/graphql` } }, { today: TODAY, detailLimit: options.detailLimit ?? 10, since: (series) => options.since?.[series] });
}

/** A raw store of its own, holding DefiLlama's protocols list (as the DefiLlama connector saves it) unless `null`. */
function freshRaw(protocols: unknown = PROTOCOLS): RawStore {
  const raw = new RawStore(join(root, `raw-${++dirs}`));
  if (protocols !== null) raw.save("defillama", "protocols", { day: TODAY, since: null, body: protocols });
  return raw;
}

function parse(raw: RawStore): ProviderOutput {
  const out = new ProviderOutput("snapshot", silentLogger);
  snapshot.parse(raw, out);
  return out;
}

const rowsOf = (out: ProviderOutput) => out.series.get("governance") ?? [];
const proposalQueries = (bodies: GraphqlBody[]) => bodies.filter((b) => b.query.includes("proposals("));

/**
 * The four recorded vote sets (quadratic, weighted, ranked-choice, approval), each under a proposal
 * record written for it in the hub's shape (the recordings keep the votes, not the proposals: its
 * space, title and choices here are ours), open from its first vote's day to its last's.
 */
const RECORDED: { id: string; type: string; choices: number }[] = [
  { id: "0x07387077920ce65b805bd0ba913a02ecfe63d22cac3dbaed3d97c23afd053fe2", type: "quadratic", choices: 3 },
  { id: "0x79ae5f9eb3c710179cfbf706fa451459ddd18d4b0bce37c22aae601128efe927", type: "weighted", choices: 40 },
  { id: "0xafe3a0426d4e6c645e869707f1b581765698d80c8d3e9cd37d7d3bf5e6f894e7", type: "ranked-choice", choices: 16 },
  { id: "0xe5e335af87dc10206e9f0de469f64901407837d659db6703cb3ea1437056a577", type: "approval", choices: 11 },
];
function recordedProposal({ id, type, choices }: (typeof RECORDED)[number]): Json {
  const votes = recordedVotes(id)!;
  const times = votes.map((v) => Number(v.created));
  return {
    id,
    title: `Recorded ${type} proposal`,
    type,
    state: "closed",
    start: Math.min(...times) - 60,
    end: Math.max(...times) + 60,
    created: Math.min(...times) - 3600,
    choices: Array.from({ length: choices }, (_, i) => `Option ${i + 1}`),
    scores: null,
    scores_total: null,
    quorum: 0,
    votes: votes.length,
    space: { id: "aavedao.eth" },
  };
}

describe("Snapshot.org connector", () => {
  test("turnout: votes cast over the circulating supply of the token the space votes with, else null", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(hub({ bodies }));
    try {
      // Uniswap's protocol names its token (gecko_id); CoinGecko's markets page of the run has its supply.
      const raw = freshRaw(PROTOCOLS.map((p) => (p.slug === "uniswap-v2" ? { ...p, gecko_id: "uniswap" } : p)));
      raw.save("coingecko", "markets/2024-07-01/1", [{ id: "uniswap", symbol: "uni", name: "Uniswap", circulating_supply: 600_000_000 }, { id: "broken", symbol: 3 }]);
      await snapshot.fetch(context(fake.url, raw));
      const rows = rowsOf(parse(raw));
      const uni = rows.find((r) => r.proposal_id === proposalKey("0x3ba0ea1a1fd21e5f35e4d3ea0c0e33ecfbd0e0b3e7bb5a0c4ac1d4b0a1e8a001"))!;
      expect(uni.turnout).toBeCloseTo(47_100_000.5 / 600_000_000, 9);
      // Aave's space votes with a token no saved market names: no honest denominator.
      expect(rows.filter((r) => r.entity_id === AAVE).every((r) => r.turnout === null)).toBe(true);
    } finally {
      fake.stop();
    }
  });

  test("spaces of the known protocols become DAOs, governed by the protocols that name them", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(hub({ bodies }));
    try {
      const raw = freshRaw();
      const progress: [number, number][] = [];
      await snapshot.fetch({ ...context(fake.url, raw), progress: (done, total) => progress.push([done, total]) });
      const spacesQuery = bodies.find((b) => b.query.includes("spaces("))!;
      // The protocols with a space, largest TVL first; "No Governance Swap" names none.
      expect(spacesQuery.variables.ids).toEqual(["lido-snapshot.eth", "aavedao.eth", "uniswapgovernance.eth", "ghost-finance.eth", "brokenspace.eth"]);
      expect(progress.at(-1)).toEqual([3, 3]);

      const out = parse(raw);
      const daos = out.claims.filter((c) => c.type === "Organization");
      expect(daos.map((c) => c.keys[0]).sort()).toEqual([AAVE, "Organization:snapshot:lido-snapshot.eth", UNI]);
      const uni = daos.find((c) => c.keys[0] === UNI)!;
      expect(uni).toMatchObject({ name: "Uniswap", labels: ["DAO"], sameAs: ["https://snapshot.org/#/uniswapgovernance.eth"] });
      expect(uni.attributes).toContainEqual(["schema:url", "https://uniswap.org"]);
      expect(uni.attributes?.some(([a]) => a === "schema:description")).toBe(true);
      expect(daos.find((c) => c.keys[0] === AAVE)!.prominence).toBe(1);
      // A space of the wrong shape is rejected with the reason; the others are kept.
      expect(out.rejected).toContainEqual({ provider: "snapshot", what: 'space "brokenspace.eth"', reason: expect.stringContaining("followersCount") });
      expect(out.links.sort((a, b) => a.subject.localeCompare(b.subject))).toEqual([
        { subject: "Protocol:defillama:aave-v3", relation: "governedBy", object: AAVE },
        { subject: "Protocol:defillama:lido", relation: "governedBy", object: "Organization:snapshot:lido-snapshot.eth" },
        { subject: "Protocol:defillama:uniswap-v2", relation: "governedBy", object: UNI },
        { subject: "Protocol:defillama:uniswap-v3", relation: "governedBy", object: UNI },
      ]);
    } finally {
      fake.stop();
    }
  });

  test("detailLimit keeps the largest protocols with a space", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(hub({ bodies }));
    try {
      await snapshot.fetch(context(fake.url, freshRaw(), { detailLimit: 2 }));
      expect(bodies.find((b) => b.query.includes("spaces("))!.variables.ids).toEqual(["lido-snapshot.eth", "aavedao.eth"]);
      expect(proposalQueries(bodies).map((b) => b.variables.spaces)).toEqual([["lido-snapshot.eth"], ["aavedao.eth"]]);
    } finally {
      fake.stop();
    }
  });

  test("proposals: claims with their status, and a governance row per proposal", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(hub({ bodies }));
    try {
      const raw = freshRaw();
      await snapshot.fetch(context(fake.url, raw));
      // First run: the last 180 days, one query per space.
      for (const b of proposalQueries(bodies)) {
        expect(b.variables).toMatchObject({ from: unix("2024-01-03"), first: 1000, skip: 0 });
        expect(b.query).toContain('orderBy: "created", orderDirection: asc');
      }
      expect(raw.has("snapshot", "proposals/uniswapgovernance.eth/2024-01-03/0")).toBe(true);

      const out = parse(raw);
      const proposals = out.claims.filter((c) => c.type === "GovernanceProposal");
      expect(proposals).toHaveLength(7);
      const claim = (id: string) => proposals.find((c) => c.keys[0] === proposalKey(id))!;
      const status = (id: string) => claim(id).attributes?.find(([a]) => a === "proposalStatus")?.[1];
      const row = (id: string) => rowsOf(out).find((r) => r.proposal_id === proposalKey(id));

      const zora = "0x3ba0ea1a1fd21e5f35e4d3ea0c0e33ecfbd0e0b3e7bb5a0c4ac1d4b0a1e8a001";
      expect(claim(zora)).toMatchObject({
        name: "Deploy Uniswap v3 on Zora",
        relations: [["proposalOf", UNI]],
        sameAs: [`https://snapshot.org/#/uniswapgovernance.eth/proposal/${zora}`],
      });
      expect(claim(zora).attributes).toContainEqual(["announcedOn", "2024-05-01"]);
      expect(status(zora)).toBe("passed");
      expect(row(zora)).toEqual({
        entity_id: UNI,
        date: "2024-05-11",
        proposal_id: proposalKey(zora),
        votesFor: 45000000.5,
        votesAgainst: 2000000,
        votesAbstain: 100000,
        turnout: null,
        margin: (45000000.5 - 2000000) / 47000000.5,
        status: "passed",
      });
      // More for than against, but short of the quorum.
      const feeSwitch = "0x3ba0ea1a1fd21e5f35e4d3ea0c0e33ecfbd0e0b3e7bb5a0c4ac1d4b0a1e8a002";
      expect(status(feeSwitch)).toBe("failed");
      expect(row(feeSwitch)).toMatchObject({ date: "2024-06-01", status: "failed", votesFor: 30000000, votesAgainst: 100 });
      // Yes / No labels, no abstain choice.
      const grant = "0x3ba0ea1a1fd21e5f35e4d3ea0c0e33ecfbd0e0b3e7bb5a0c4ac1d4b0a1e8a005";
      expect(row(grant)).toMatchObject({ date: "2024-06-12", votesFor: 41000000, votesAgainst: 9000000, votesAbstain: null, margin: 0.64, status: "passed" });
      // Open: the row speaks for the day of the run.
      const fund = "0x3ba0ea1a1fd21e5f35e4d3ea0c0e33ecfbd0e0b3e7bb5a0c4ac1d4b0a1e8a003";
      expect(status(fund)).toBe("active");
      expect(row(fund)).toMatchObject({ date: TODAY, votesFor: 1000, votesAgainst: 3000, votesAbstain: 50, margin: -0.5, status: "active" });
      // Pending: a claim, no votes to tally yet.
      const pending = "0x3ba0ea1a1fd21e5f35e4d3ea0c0e33ecfbd0e0b3e7bb5a0c4ac1d4b0a1e8a004";
      expect(status(pending)).toBe("active");
      expect(row(pending)).toBeUndefined();
      // Labels that say neither: the first choice counts for, the second against.
      const oracle = "QmWbpCtwdLzxuLKnMW4Vv4MPFd2pdPX71YBKPasfZxqLUS";
      expect(row(oracle)).toMatchObject({ entity_id: AAVE, date: "2024-03-10", votesFor: 800000, votesAgainst: 200000, votesAbstain: null, margin: 0.6, status: "passed" });
      const gho = "0x9c1fa7e4b83c2a8e6d5d8c3c8c2f1a5b3e9d7a1c0b4f2e6d8a9c3b5e7f1a2d4c";
      expect(row(gho)).toMatchObject({ votesFor: 100, votesAgainst: 500000, votesAbstain: 20, status: "failed" });
      expect(row(gho)!.margin).toBeCloseTo((100 - 500000) / 500100, 12);
      // The garbled record is rejected with the reason; the old one was never asked for.
      expect(out.rejected).toContainEqual({
        provider: "snapshot",
        what: 'proposal "0x9c1fa7e4b83c2a8e6d5d8c3c8c2f1a5b3e9d7a1c0b4f2e6d8a9c3b5e7f1a2d4d"',
        reason: expect.stringContaining("end"),
      });
      expect(rowsOf(out)).toHaveLength(6);
      expect(out.latestDate).toBe(TODAY);
    } finally {
      fake.stop();
    }
  });

  test.skipIf(skipWithout(`${VOTES}/${RECORDED[0]!.id}.json`, "the snapshot connector on snapshot-sidekick's recorded votes"))("recorded votes of four proposal types give each open day's tally: every vote by the day's end, each choice credited as its type counts", async () => {
    const bodies: GraphqlBody[] = [];
    const proposals = RECORDED.map(recordedProposal);
    const fake = startFakeProvider(hub({ bodies, proposals }));
    try {
      const raw = freshRaw([PROTOCOLS[0]]);
      // From before the first vote: every recorded proposal is read.
      await snapshot.fetch(context(fake.url, raw, { since: { [AAVE]: "2022-12-01" } }));
      // A page a thousand votes; the next starts at the last one's time (1,175 votes: two pages).
      for (const { id } of RECORDED) expect(raw.keys("snapshot", `votes/${id}/`)).toHaveLength(recordedVotes(id)!.length > 1000 ? 2 : 1);
      const rows = rowsOf(parse(raw));
      for (const { id } of RECORDED) {
        const votes = recordedVotes(id)!;
        const mine = rows.filter((r) => r.proposal_id === proposalKey(id)).sort((a, b) => String(a.date).localeCompare(String(b.date)));
        const days = new Set(votes.map((v) => new Date(Number(v.created) * 1000).toISOString().slice(0, 10)));
        // A row a day from the first vote's day to the last's, the result on the last.
        expect(mine.length).toBeGreaterThanOrEqual(days.size);
        expect(mine[0]!.date).toBe([...days].sort()[0]);
        expect(mine.slice(0, -1).every((r) => r.status === "active")).toBe(true);
        expect(["passed", "failed"]).toContain(mine.at(-1)!.status as string);
        // Tallies only grow while a proposal is open.
        const counted = mine.map((r) => Number(r.votesFor ?? 0) + Number(r.votesAgainst ?? 0) + Number(r.votesAbstain ?? 0));
        expect(counted.every((n, i) => i === 0 || n >= counted[i - 1]!)).toBe(true);
      }
      // Approval credits each approved choice whole: "Option 1" (for) holds the power of every voter who approved it.
      const approval = RECORDED[3]!;
      const approved = recordedVotes(approval.id)!.filter((v) => (v.choice as number[]).includes(1)).reduce((sum, v) => sum + Number(v.vp), 0);
      const last = rows.filter((r) => r.proposal_id === proposalKey(approval.id)).sort((a, b) => String(a.date).localeCompare(String(b.date))).at(-1)!;
      expect(Number(last.votesFor)).toBeCloseTo(approved, 3);
    } finally {
      fake.stop();
    }
  });

  test("proposals are paged by skip until a short page", async () => {
    const bodies: GraphqlBody[] = [];
    const template = PROPOSALS[0]!;
    const many = Array.from({ length: 1003 }, (_, i) => ({
      ...template,
      id: `0x${i.toString(16).padStart(64, "0")}`,
      title: `Proposal ${i}`,
      created: unix("2024-02-01") + i * 600,
      space: { id: "uniswapgovernance.eth" },
    }));
    const fake = startFakeProvider(hub({ bodies, proposals: many }));
    try {
      const raw = freshRaw([PROTOCOLS[1]]);
      await snapshot.fetch(context(fake.url, raw));
      expect(proposalQueries(bodies).map((b) => b.variables.skip)).toEqual([0, 1000]);
      expect(raw.keys("snapshot", "proposals/")).toEqual(["proposals/uniswapgovernance.eth/2024-01-03/0", "proposals/uniswapgovernance.eth/2024-01-03/1000"]);
      const out = parse(raw);
      expect(out.claims.filter((c) => c.type === "GovernanceProposal")).toHaveLength(1003);
      expect(rowsOf(out)).toHaveLength(1003);
    } finally {
      fake.stop();
    }
  });

  test("with a stored day, proposals are asked from the next day, and the ones still open then again", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(hub({ bodies }));
    try {
      const raw = freshRaw([PROTOCOLS[0], PROTOCOLS[1]]);
      await snapshot.fetch(context(fake.url, raw, { since: { [UNI]: "2024-06-10" } }));
      const uni = proposalQueries(bodies).filter((b) => (b.variables.spaces as string[])[0] === "uniswapgovernance.eth");
      expect(uni).toHaveLength(2);
      expect(uni[0]!.variables).toMatchObject({ from: unix("2024-06-11"), skip: 0 });
      expect(uni[0]!.query).toContain("created_gte: $from");
      expect(uni[1]!.variables).toMatchObject({ before: unix("2024-06-11"), endFrom: unix("2024-06-10"), skip: 0 });
      expect(uni[1]!.query).toContain("created_lt: $before, end_gte: $endFrom");
      // A space without a stored day still starts 180 days back.
      const aave = proposalQueries(bodies).filter((b) => (b.variables.spaces as string[])[0] === "aavedao.eth");
      expect(aave.map((b) => b.variables.from)).toEqual([unix("2024-01-03")]);
      expect(raw.has("snapshot", "proposals/uniswapgovernance.eth/2024-06-11/0")).toBe(true);
      expect(raw.has("snapshot", "open/uniswapgovernance.eth/2024-06-11/0")).toBe(true);

      const out = parse(raw);
      const uniRows = rowsOf(out).filter((r) => r.entity_id === UNI);
      // The grant vote (created before the stored day, closed after it) and the open one.
      expect(uniRows.map((r) => [r.date, r.status]).sort()).toEqual([
        ["2024-06-12", "passed"],
        [TODAY, "active"],
      ]);
    } finally {
      fake.stop();
    }
  });

  const faults: [string, Fault][] = [
    ["429 with Retry-After", { kind: "429", retryAfter: "1" }],
    ["500", { kind: "500" }],
    ["a hang longer than the time limit", { kind: "hang", ms: 800 }],
    ["truncated JSON", { kind: "truncated" }],
    ["malformed JSON", { kind: "malformed" }],
  ];
  for (const [name, fault] of faults) {
    test(`${name}, then success`, async () => {
      const bodies: GraphqlBody[] = [];
      const fake = startFakeProvider(hub({ bodies }));
      try {
        fake.fail("/graphql", fault);
        const raw = freshRaw([PROTOCOLS[1]]);
        const ctx = context(fake.url, raw);
        await snapshot.fetch(ctx);
        expect(ctx.http.stats.retries).toBe(1);
        expect(ctx.http.stats.rateLimited).toBe(fault.kind === "429" ? 1 : 0);
        const out = parse(raw);
        expect(out.claims.filter((c) => c.type === "GovernanceProposal")).toHaveLength(5);
      } finally {
        fake.stop();
      }
    });
  }

  test("a request that fails every retry is skipped with its reason, the other spaces go on; a resumed run asks only it", async () => {
    const bodies: GraphqlBody[] = [];
    let broken = true;
    const fake = startFakeProvider(
      hub({
        bodies,
        fail: (b) => (broken && (b.variables.spaces as string[] | undefined)?.[0] === "uniswapgovernance.eth" ? new Response("upstream error", { status: 502 }) : undefined),
      }),
    );
    try {
      const raw = freshRaw([PROTOCOLS[0], PROTOCOLS[1]]);
      const ctx = context(fake.url, raw);
      await snapshot.fetch(ctx);
      expect(ctx.skipped.map((x) => [x.request, x.status])).toEqual([["proposals/uniswapgovernance.eth/2024-01-03/0", 502]]);
      expect(raw.has("snapshot", "spaces/0")).toBe(true);
      expect(raw.has("snapshot", "proposals/aavedao.eth/2024-01-03/0")).toBe(true);
      expect(raw.has("snapshot", "proposals/uniswapgovernance.eth/2024-01-03/0")).toBe(false);

      broken = false;
      bodies.length = 0;
      await snapshot.fetch(context(fake.url, raw));
      expect(bodies.map((b) => b.variables.spaces)).toEqual([["uniswapgovernance.eth"]]);

      bodies.length = 0;
      await snapshot.fetch(context(fake.url, raw));
      expect(bodies).toHaveLength(0);
    } finally {
      fake.stop();
    }
  });

  test("a GraphQL error is skipped with the hub's message and not saved; a saved answer of the wrong shape is rejected", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(
      hub({ bodies, fail: (b) => (b.query.includes("proposals(") ? Response.json({ data: { proposals: null }, errors: [{ message: "The `skip` argument must not be greater than 5000" }] }) : undefined) }),
    );
    try {
      const raw = freshRaw([PROTOCOLS[1]]);
      const ctx = context(fake.url, raw);
      await snapshot.fetch(ctx);
      expect(ctx.skipped).toEqual([expect.objectContaining({ request: "proposals/uniswapgovernance.eth/2024-01-03/0", reason: expect.stringContaining("skip") })]);
      expect(raw.keys("snapshot", "proposals/")).toEqual([]);

      raw.save("snapshot", "proposals/uniswapgovernance.eth/2024-01-03/0", { data: { proposals: { id: "not a list" } } });
      const out = parse(raw);
      expect(out.rejected).toContainEqual({ provider: "snapshot", what: "snapshot answer proposals/uniswapgovernance.eth/2024-01-03/0", reason: "no data.proposals list" });
      expect(out.claims.filter((c) => c.type === "Organization")).toHaveLength(1);
    } finally {
      fake.stop();
    }
  });

  test("without a saved protocols list, the hub's most followed spaces are read", async () => {
    const bodies: GraphqlBody[] = [];
    const fake = startFakeProvider(hub({ bodies }));
    try {
      const raw = freshRaw(null);
      await snapshot.fetch(context(fake.url, raw, { detailLimit: 2 }));
      expect(bodies[0]!.query).toContain("ranking(");
      expect(bodies[0]!.variables).toEqual({ first: 20, skip: 0 });
      expect(bodies.some((b) => b.query.includes("spaces("))).toBe(false);
      expect(proposalQueries(bodies).map((b) => b.variables.spaces)).toEqual([["arbitrumfoundation.eth"], ["aavedao.eth"]]);
      const out = parse(raw);
      expect(out.claims.filter((c) => c.type === "Organization")).toHaveLength(4);
      expect(out.links).toEqual([]);
    } finally {
      fake.stop();
    }
  });
});
