/**
 * @module ingest/providers/snapshot
 * DAOs and their off-chain governance from Snapshot (hub.snapshot.org/graphql): the spaces of the
 * known protocols (DefiLlama's `governanceID: ["snapshot:<space>"]`, the largest by TVL first), their
 * proposals with status and vote tallies, and a `governance` row per proposal.
 *
 * Which spaces: the DefiLlama protocols list saved in the same raw store (`defillama/protocols`), as
 * DefiLlama's parser reads it (defillama/known-protocols). Without it the hub's `ranking` (spaces by
 * popularity, which followers drive) stands in, the most followed first.
 *
 * Incremental, per space: the proposals created since the day after the space's last stored
 * governance day (`since(Organization:snapshot:<space>)`), or the last 180 days for a new space.
 * One query per space rather than one for all from the earliest day: spaces differ in how far
 * they are stored, and one space's long gap would otherwise re-download every other space's recent
 * proposals. A later run also asks again for the proposals created before that day that were still
 * open on it (`created_lt`, `end_gte`): their tallies moved and their result came in, which the
 * created-after query alone would never see.
 *
 * Votes (one record per voter) are not fetched: the proposal's `scores` already give the tally per
 * choice, and voter lists would cost hundreds of requests per space for no column of the kind.
 * `turnout` needs a voting supply the hub does not give (scores are voting power under each
 * space's own strategies; `quorum` is a threshold in the same units). When the space votes with
 * the token of a protocol it governs (the space's symbol is that token's, the DefiLlama protocol's
 * `gecko_id` names it), turnout is scores_total over the token's circulating supply as CoinGecko's
 * markets answer of the same run says (capped at 1); otherwise it stays null.
 */
import { z } from "zod";
import type { Connector, FetchContext } from "../connector.ts";
import { dayOf, fetchOnce, parseEach, unixOf } from "../connector.ts";
import { ProviderError } from "../http.ts";
import type { RawStore } from "../raw-store.ts";
import { type SeriesRow, key } from "../records.ts";
import { addDays } from "../../time.ts";
import { latestMarkets } from "./coingecko/markets.ts";
import { knownProtocols } from "./defillama/known-protocols.ts";

export const SNAPSHOT_API = "https://hub.snapshot.org/graphql";
/** The hub's largest `first` for proposals; a shorter page is the last. */
export const PROPOSAL_PAGE = 1000;
/** The hub refuses `skip` above 5000 (and `*_in` lists above 100 ids). */
const MAX_SKIP = 5000;
const SPACES_PER_QUERY = 100;
/** `ranking` answers at most 20 spaces a request. */
const RANKING_PAGE = 20;
/** How far back a space seen for the first time is read. */
export const FIRST_RUN_DAYS = 180;

const SPACE_FIELDS = "id name about network symbol followersCount proposalsCount website";
const PROPOSAL_FIELDS = "id title state start end created choices scores scores_total quorum votes space { id }";

export const SPACES_QUERY = `query Spaces($ids: [String], $first: Int!) {
  spaces(first: $first, skip: 0, where: { id_in: $ids }) { ${SPACE_FIELDS} }
}`;
export const RANKING_QUERY = `query Ranking($first: Int!, $skip: Int!) {
  ranking(first: $first, skip: $skip) { items { ${SPACE_FIELDS} } }
}`;
export const PROPOSALS_QUERY = `query Proposals($spaces: [String], $from: Int!, $first: Int!, $skip: Int!) {
  proposals(first: $first, skip: $skip, where: { space_in: $spaces, created_gte: $from }, orderBy: "created", orderDirection: asc) { ${PROPOSAL_FIELDS} }
}`;
export const OPEN_PROPOSALS_QUERY = `query OpenProposals($spaces: [String], $before: Int!, $endFrom: Int!, $first: Int!, $skip: Int!) {
  proposals(first: $first, skip: $skip, where: { space_in: $spaces, created_lt: $before, end_gte: $endFrom }, orderBy: "created", orderDirection: asc) { ${PROPOSAL_FIELDS} }
}`;

// ---------------------------------------------------------------------------------------------
// Answers.

const spaceSchema = z.object({
  id: z.string().min(1),
  name: z.string().nullish(),
  about: z.string().nullish(),
  network: z.string().nullish(),
  symbol: z.string().nullish(),
  followersCount: z.number().nullish(),
  proposalsCount: z.number().nullish(),
  website: z.string().nullish(),
});
type Space = z.infer<typeof spaceSchema>;

const proposalSchema = z.object({
  id: z.string().min(1),
  title: z.string(),
  state: z.enum(["pending", "active", "closed"]),
  start: z.number().int(),
  end: z.number().int(),
  created: z.number().int(),
  choices: z.array(z.string().nullable()),
  scores: z.array(z.number().nullable()).nullish(),
  scores_total: z.number().nullish(),
  quorum: z.number().nullish(),
  votes: z.number().nullish(),
  space: z.object({ id: z.string().min(1) }),
});
type Proposal = z.infer<typeof proposalSchema>;

const runSchema = z.object({ today: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });

/** `data.<field>` of a GraphQL answer as a list, else undefined. */
function listOf(answer: unknown, field: "spaces" | "proposals" | "ranking"): unknown[] | undefined {
  const data = (answer as { data?: Record<string, unknown> } | null)?.data;
  const value = field === "ranking" ? (data?.ranking as { items?: unknown } | null | undefined)?.items : data?.[field];
  return Array.isArray(value) ? value : undefined;
}

/** A record's id as a rejection names it ("uniswap.eth", or null). */
const idOf = (item: unknown) => JSON.stringify((item as { id?: unknown } | null)?.id ?? null);

const spaceKey = (id: string) => key("Organization", "snapshot", id);
const proposalKey = (id: string) => key("GovernanceProposal", "snapshot", id);

// ---------------------------------------------------------------------------------------------
// Votes and results.

export type Side = "for" | "against" | "abstain";

/** Which side each choice counts for: by its label, else the first choice for and the second against. */
export function sidesOf(choices: (string | null)[]): (Side | undefined)[] {
  const sides = choices.map((label): Side | undefined => {
    const text = (label ?? "").trim().toLowerCase();
    if (/^(for|yes|yae|yea|aye)\b/.test(text)) return "for";
    if (/^(against|no|nay)\b/.test(text)) return "against";
    if (/^abstain/.test(text)) return "abstain";
    return undefined;
  });
  if (!sides.includes("for") && choices.length > 0 && sides[0] === undefined) sides[0] = "for";
  if (!sides.includes("against") && choices.length > 1 && sides[1] === undefined) sides[1] = "against";
  return sides;
}

export interface Tally {
  votesFor: number | null;
  votesAgainst: number | null;
  votesAbstain: number | null;
  margin: number | null;
  status: "active" | "passed" | "failed";
}

export function tally(p: Pick<Proposal, "state" | "choices" | "scores" | "scores_total" | "quorum">): Tally {
  const sides = sidesOf(p.choices);
  const scores = p.scores ?? [];
  const sum = (side: Side): number | null => {
    if (!sides.includes(side) || scores.length === 0) return null;
    let total = 0;
    sides.forEach((s, i) => {
      if (s === side) total += scores[i] ?? 0;
    });
    return total;
  };
  const votesFor = sum("for");
  const votesAgainst = sum("against");
  const votesAbstain = sum("abstain");
  const decided = (votesFor ?? 0) + (votesAgainst ?? 0);
  const margin = votesFor !== null && votesAgainst !== null && decided > 0 ? (votesFor - votesAgainst) / decided : null;
  let status: Tally["status"] = "active";
  if (p.state === "closed") {
    const quorumMet = (p.scores_total ?? 0) >= (p.quorum ?? 0);
    status = votesFor !== null && votesFor > (votesAgainst ?? 0) && quorumMet ? "passed" : "failed";
  }
  return { votesFor, votesAgainst, votesAbstain, margin, status };
}

const STATE_RANK = { pending: 0, active: 1, closed: 2 } as const;

// ---------------------------------------------------------------------------------------------

/** A GraphQL answer with `data.<field>`, else an error (not saved: a resumed run asks again). */
async function graphql(ctx: FetchContext, api: string, query: string, variables: Record<string, unknown>, field: "spaces" | "proposals" | "ranking"): Promise<unknown> {
  const answer = await ctx.http.postJson(api, { query, variables });
  if (listOf(answer, field)) return answer;
  const errors = (answer as { errors?: { message?: unknown }[] } | null)?.errors;
  const message = Array.isArray(errors) && typeof errors[0]?.message === "string" ? errors[0].message : `no data.${field} list in the answer`;
  throw new ProviderError(`snapshot: ${message}`);
}

function savedList(raw: RawStore, k: string, field: "spaces" | "proposals" | "ranking"): unknown[] {
  return listOf(raw.load("snapshot", k), field) ?? [];
}

/** Pages a proposals query by `skip` until a short page (each page saved under `<prefix>/<skip>`). */
async function fetchProposalPages(ctx: FetchContext, api: string, prefix: string, query: string, variables: Record<string, unknown>): Promise<void> {
  for (let skip = 0; skip <= MAX_SKIP; skip += PROPOSAL_PAGE) {
    const k = `${prefix}/${skip}`;
    await fetchOnce(ctx, "snapshot", k, () => graphql(ctx, api, query, { ...variables, first: PROPOSAL_PAGE, skip }, "proposals"));
    if (savedList(ctx.raw, k, "proposals").length < PROPOSAL_PAGE) return;
  }
  ctx.log.warn({ prefix }, "more proposals than the hub pages through (skip > 5000); the rest are left out");
}

export const snapshot: Connector = {
  id: "snapshot",
  source: {
    id: "snapshot",
    name: "Snapshot (hub.snapshot.org)",
    kind: "provider",
    synthetic: false,
    license: "public API (Snapshot Labs); proposals are published by their spaces",
    attribution: "Off-chain governance (spaces, proposals, vote tallies) from the Snapshot hub (https://snapshot.org).",
    homepage: "https://snapshot.org",
  },

  async fetch(ctx) {
    const api = ctx.settings.urls.api ?? SNAPSHOT_API;
    const limit = Math.max(0, ctx.detailLimit);
    let spaceIds: string[];

    const known = knownProtocols(ctx.raw);
    if (known.problem) {
      ctx.log.warn({ reason: known.problem }, "Snapshot: no known protocols; reading the hub's most followed spaces instead");
      const items: Space[] = [];
      for (let skip = 0; items.length < limit; skip += RANKING_PAGE) {
        const k = `ranking/${skip}`;
        await fetchOnce(ctx, "snapshot", k, () => graphql(ctx, api, RANKING_QUERY, { first: RANKING_PAGE, skip }, "ranking"));
        const page = savedList(ctx.raw, k, "ranking");
        items.push(...parseEach(page, spaceSchema));
        if (page.length < RANKING_PAGE) break;
      }
      items.sort((a, b) => (b.followersCount ?? 0) - (a.followersCount ?? 0));
      spaceIds = [...new Set(items.map((s) => s.id))].slice(0, limit);
    } else {
      // The largest protocols that vote on Snapshot; several (Uniswap V2, V3) may share a space.
      const ids = new Set<string>();
      for (const p of known.protocols.filter((x) => x.spaces.length > 0).slice(0, limit)) for (const s of p.spaces) ids.add(s);
      if (ids.size === 0) ctx.log.warn({ protocols: known.protocols.length }, "Snapshot: none of the known protocols names a Snapshot space");
      const asked = [...ids];
      // Spaces the hub knows (in a readable record), by the hub's spelling of their id.
      const found = new Map<string, string>();
      for (let i = 0; i * SPACES_PER_QUERY < asked.length; i++) {
        const chunk = asked.slice(i * SPACES_PER_QUERY, (i + 1) * SPACES_PER_QUERY);
        const k = `spaces/${i}`;
        await fetchOnce(ctx, "snapshot", k, () => graphql(ctx, api, SPACES_QUERY, { ids: chunk, first: chunk.length }, "spaces"));
        for (const space of parseEach(savedList(ctx.raw, k, "spaces"), spaceSchema)) found.set(space.id.toLowerCase(), space.id);
      }
      const missing = asked.filter((id) => !found.has(id.toLowerCase()));
      if (missing.length > 0) ctx.log.info({ missing }, "Snapshot: spaces named by DefiLlama that the hub does not know (or answers unreadably)");
      // The largest protocols' spaces first.
      spaceIds = [...new Set(asked.flatMap((id) => found.get(id.toLowerCase()) ?? []))];
    }

    // The day active proposals' rows speak for (parse never sees the context).
    ctx.raw.save("snapshot", "run", { today: ctx.today });
    const total = spaceIds.length;
    ctx.progress(0, total);
    for (const [i, space] of spaceIds.entries()) {
      const since = ctx.since(spaceKey(space));
      const sinceDay = since ? addDays(since, 1) : addDays(ctx.today, -FIRST_RUN_DAYS);
      await fetchProposalPages(ctx, api, `proposals/${space}/${sinceDay}`, PROPOSALS_QUERY, { spaces: [space], from: unixOf(sinceDay) });
      if (since) {
        // Proposals created before that day but still open on the last stored day.
        await fetchProposalPages(ctx, api, `open/${space}/${sinceDay}`, OPEN_PROPOSALS_QUERY, { spaces: [space], before: unixOf(sinceDay), endFrom: unixOf(since) });
      }
      ctx.progress(i + 1, total);
    }
  },

  parse(raw, out) {
    // Spaces: DAOs.
    const spaces = new Map<string, Space>();
    for (const k of [...raw.keys("snapshot", "spaces/"), ...raw.keys("snapshot", "ranking/")]) {
      const field = k.startsWith("ranking/") ? "ranking" : "spaces";
      const list = listOf(raw.load("snapshot", k), field);
      if (!list) {
        out.reject(`snapshot answer ${k}`, `no data.${field === "ranking" ? "ranking.items" : "spaces"} list`);
        continue;
      }
      for (const space of parseEach(list, spaceSchema, (item, issue) => out.reject(`space ${idOf(item)}`, issue))) spaces.set(space.id.toLowerCase(), space);
    }
    const maxFollowers = Math.max(0, ...[...spaces.values()].map((s) => s.followersCount ?? 0));
    for (const space of spaces.values()) {
      const website = space.website?.trim();
      const about = space.about?.trim();
      out.entity({
        type: "Organization",
        keys: [spaceKey(space.id)],
        name: space.name?.trim() || space.id,
        labels: ["DAO"],
        attributes: [
          ...(about ? [["schema:description", about] as ["schema:description", string]] : []),
          ...(website && /^https?:\/\//i.test(website) ? [["schema:url", website] as ["schema:url", string]] : []),
        ],
        sameAs: [`https://snapshot.org/#/${space.id}`],
        prominence: maxFollowers > 0 ? Math.log1p(space.followersCount ?? 0) / Math.log1p(maxFollowers) : undefined,
      });
    }
    const supplies = circulatingSupplies(raw);
    /** Circulating supply of the token a space votes with, by space id (lower case). */
    const votingSupply = new Map<string, number>();
    for (const protocol of knownProtocols(raw).protocols) {
      for (const id of protocol.spaces) {
        const space = spaces.get(id.toLowerCase());
        if (!space) continue;
        out.link(key("Protocol", "defillama", protocol.slug), "governedBy", spaceKey(space.id));
        const token = protocol.geckoId ? supplies.get(protocol.geckoId) : undefined;
        if (token && space.symbol && token.symbol.toLowerCase() === space.symbol.toLowerCase()) votingSupply.set(space.id.toLowerCase(), token.supply);
      }
    }

    // Proposals: the latest state of each (a proposal may be in a created-after and an open page).
    const proposals = new Map<string, Proposal>();
    for (const k of [...raw.keys("snapshot", "proposals/"), ...raw.keys("snapshot", "open/")]) {
      const list = listOf(raw.load("snapshot", k), "proposals");
      if (!list) {
        out.reject(`snapshot answer ${k}`, "no data.proposals list");
        continue;
      }
      for (const proposal of parseEach(list, proposalSchema, (item, issue) => out.reject(`proposal ${idOf(item)}`, issue))) {
        const seen = proposals.get(proposal.id);
        if (!seen || STATE_RANK[proposal.state] >= STATE_RANK[seen.state]) proposals.set(proposal.id, proposal);
      }
    }
    const run = runSchema.safeParse(raw.load("snapshot", "run"));
    const today = run.success ? run.data.today : undefined;
    for (const p of proposals.values()) {
      const space = spaces.get(p.space.id.toLowerCase())?.id ?? p.space.id;
      const result = tally(p);
      const created = dayOf(p.created);
      out.entity({
        type: "GovernanceProposal",
        keys: [proposalKey(p.id)],
        name: p.title.trim(),
        attributes: [["proposalStatus", result.status], ...(created ? [["announcedOn", created] as ["announcedOn", string]] : [])],
        relations: [["proposalOf", spaceKey(space)]],
        sameAs: [`https://snapshot.org/#/${space}/proposal/${p.id}`],
      });
      // Pending proposals have no votes yet; open ones speak for the day they were read.
      if (p.state === "pending") continue;
      const date = p.state === "active" ? today : dayOf(p.end);
      if (!date) continue;
      const row: SeriesRow = {
        entity_id: spaceKey(space),
        date,
        proposal_id: proposalKey(p.id),
        votesFor: result.votesFor,
        votesAgainst: result.votesAgainst,
        votesAbstain: result.votesAbstain,
        turnout: turnoutOf(p.scores_total, votingSupply.get(p.space.id.toLowerCase())),
        margin: result.margin,
        status: result.status,
      };
      out.row("governance", row);
    }
  },
};

function turnoutOf(cast: number | null | undefined, supply: number | undefined): number | null {
  if (!supply || supply <= 0 || typeof cast !== "number" || !Number.isFinite(cast) || cast < 0) return null;
  return Math.min(1, cast / supply);
}

/** Coins' symbol and circulating supply, by CoinGecko id, from CoinGecko's markets pages of the latest day saved in the same run. */
function circulatingSupplies(raw: RawStore): Map<string, { symbol: string; supply: number }> {
  const out = new Map<string, { symbol: string; supply: number }>();
  for (const m of latestMarkets(raw)) {
    const supply = m.circulating_supply;
    if (typeof supply === "number" && supply > 0 && m.symbol !== "") out.set(m.id, { symbol: m.symbol, supply });
  }
  return out;
}
