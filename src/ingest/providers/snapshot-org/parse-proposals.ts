/**
 * @module ingest/providers/snapshot-org/parse-proposals
 * Proposals: a claim each with its status, and `governance` rows with the tally of each day a
 * proposal was open when its votes were read (daily-tallies), else one row (closed ones on their
 * end day, active ones on the day they were read).
 */
import { dayOf, parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput, SeriesRow } from "../../records.ts";
import { listOf } from "./hub.ts";
import { P, idOf, proposalKey, spaceKey } from "./keys.ts";
import { type Proposal, proposalSchema, runSchema, type Space } from "./schemas.ts";
import { dailyScores, savedVotes } from "./daily-tallies.ts";
import { tally, turnoutOf } from "./tally.ts";

const STATE_RANK = { pending: 0, active: 1, closed: 2 } as const;

/** `spaces` are the parsed spaces by lower-case id; `votingSupply` the supply each votes with (see linkProtocols). */
export function parseProposals(raw: RawStore, out: ProviderOutput, spaces: Map<string, Space>, votingSupply: Map<string, number>): void {
  // The latest state of each (a proposal may be in a created-after and an open page).
  const proposals = new Map<string, Proposal>();
  for (const k of [...raw.keys(P, "proposals/"), ...raw.keys(P, "open/")]) {
    const list = listOf(raw.load(P, k), "proposals");
    if (!list) {
      out.reject(`snapshot answer ${k}`, "no data.proposals list");
      continue;
    }
    for (const proposal of parseEach(list, proposalSchema, (item, issue) => out.reject(`proposal ${idOf(item)}`, issue))) {
      const seen = proposals.get(proposal.id);
      if (!seen || STATE_RANK[proposal.state] >= STATE_RANK[seen.state]) proposals.set(proposal.id, proposal);
    }
  }
  const run = runSchema.safeParse(raw.load(P, "run"));
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
    // Pending proposals have no votes yet.
    if (p.state === "pending") continue;
    const supply = votingSupply.get(p.space.id.toLowerCase());
    const row = (date: string, scores: (number | null)[] | null | undefined, total: number | null | undefined): SeriesRow => {
      const day = tally({ ...p, scores, scores_total: total, state: date === dayOf(p.end) ? p.state : "active" });
      return {
        entity_id: spaceKey(space),
        date,
        proposal_id: proposalKey(p.id),
        votesFor: day.votesFor,
        votesAgainst: day.votesAgainst,
        votesAbstain: day.votesAbstain,
        turnout: turnoutOf(total, supply),
        margin: day.margin,
        status: day.status,
      };
    };
    // With its votes (all of them: a cut read would understate every day): the tally of each day it
    // was open. Without: open ones speak for the day they were read, closed ones for the day they closed.
    const votes = savedVotes(raw, p.id, (what, reason) => out.reject(what, reason));
    if (votes && votes.length > 0 && votes.length >= 0.95 * (p.votes ?? 0)) {
      for (const { day, scores, total } of dailyScores(p, votes, today)) out.row("governance", row(day, scores, total));
      continue;
    }
    const date = p.state === "active" ? today : dayOf(p.end);
    if (date) out.row("governance", row(date, p.scores, p.scores_total));
  }
}
