/**
 * @module ingest/providers/snapshot-org/fetch
 * What the hub is asked: the spaces of the known protocols (else the most followed ones), then
 * each space's proposals since its last stored day, and those still open on that day again.
 */
import type { FetchContext } from "../../connector.ts";
import { answered, ask, parseEach, unixOf } from "../../connector.ts";
import { addDays } from "../../../time.ts";
import { knownProtocols } from "../defillama/known-protocols.ts";
import { fetchProposalPages, graphql, OPEN_PROPOSALS_QUERY, PROPOSALS_QUERY, RANKING_QUERY, savedList, SNAPSHOT_API, SPACES_QUERY, VOTE_PAGE, VOTES_QUERY } from "./hub.ts";
import { P, spaceKey } from "./keys.ts";
import { type Proposal, proposalSchema, type Space, spaceSchema } from "./schemas.ts";

/** The hub refuses `*_in` lists above 100 ids. */
const SPACES_PER_QUERY = 100;
/** `ranking` answers at most 20 spaces a request. */
const RANKING_PAGE = 20;
/** How far back a space seen for the first time is read. */
const FIRST_RUN_DAYS = 180;

export async function fetchAll(ctx: FetchContext): Promise<void> {
  const api = ctx.settings.urls.api ?? SNAPSHOT_API;
  const limit = Math.max(0, ctx.detailLimit);
  let spaceIds: string[];

  const known = knownProtocols(ctx.raw);
  if (known.problem) {
    ctx.log.warn({ reason: known.problem }, "Snapshot: no known protocols; reading the hub's most followed spaces instead");
    const items: Space[] = [];
    for (let skip = 0; items.length < limit; skip += RANKING_PAGE) {
      const k = `ranking/${skip}`;
      if (!answered(await ask(ctx, P, k, () => graphql(ctx, api, RANKING_QUERY, { first: RANKING_PAGE, skip }, "ranking")))) break;
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
      await ask(ctx, P, k, () => graphql(ctx, api, SPACES_QUERY, { ids: chunk, first: chunk.length }, "spaces"));
      for (const space of parseEach(savedList(ctx.raw, k, "spaces"), spaceSchema)) found.set(space.id.toLowerCase(), space.id);
    }
    const missing = asked.filter((id) => !found.has(id.toLowerCase()));
    if (missing.length > 0) ctx.log.info({ missing }, "Snapshot: spaces named by DefiLlama that the hub does not know (or answers unreadably)");
    // The largest protocols' spaces first.
    spaceIds = [...new Set(asked.flatMap((id) => found.get(id.toLowerCase()) ?? []))];
  }

  // The day active proposals' rows speak for (parse never sees the context).
  ctx.raw.save(P, "run", { today: ctx.today });
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
  await fetchVotes(ctx, api);
}

/** Votes read of one proposal at most (a page a thousand). */
const MAX_VOTE_PAGES = 20;

/**
 * The votes of the proposals read in this run that have any, the latest to close first, at most
 * `detailLimit` proposals: they give each day's tally while a proposal was open. A page ends at the
 * time of its last vote, and the next starts there (votes of that second come again, and count once).
 */
async function fetchVotes(ctx: FetchContext, api: string): Promise<void> {
  const proposals = new Map<string, Proposal>();
  for (const k of [...ctx.raw.keys(P, "proposals/"), ...ctx.raw.keys(P, "open/")]) {
    for (const p of parseEach(savedList(ctx.raw, k, "proposals"), proposalSchema)) if (p.state !== "pending" && (p.votes ?? 0) > 0) proposals.set(p.id, p);
  }
  const chosen = [...proposals.values()].sort((a, b) => b.end - a.end || a.id.localeCompare(b.id)).slice(0, Math.max(0, ctx.detailLimit));
  for (const p of chosen) {
    let from = p.start;
    for (let page = 0; page < MAX_VOTE_PAGES; page++) {
      const k = `votes/${p.id}/${page}`;
      if (!answered(await ask(ctx, P, k, () => graphql(ctx, api, VOTES_QUERY, { proposal: p.id, from, first: VOTE_PAGE }, "votes")))) break;
      const votes = savedList(ctx.raw, k, "votes");
      if (votes.length < VOTE_PAGE) break;
      const last = (votes.at(-1) as { created?: unknown }).created;
      if (typeof last !== "number" || last <= from) break;
      from = last;
    }
  }
}
