/**
 * @module ingest/providers/snapshot/parse-proposals
 * Proposals: a claim each with its status, and a `governance` row with the tally per proposal that
 * has votes (closed ones on their end day, active ones on the day they were read).
 */
import { dayOf, parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import type { ProviderOutput, SeriesRow } from "../../records.ts";
import { listOf } from "./hub.ts";
import { idOf, proposalKey, spaceKey } from "./keys.ts";
import { type Proposal, proposalSchema, runSchema, type Space } from "./schemas.ts";
import { tally, turnoutOf } from "./tally.ts";

const STATE_RANK = { pending: 0, active: 1, closed: 2 } as const;

/** `spaces` are the parsed spaces by lower-case id; `votingSupply` the supply each votes with (see linkProtocols). */
export function parseProposals(raw: RawStore, out: ProviderOutput, spaces: Map<string, Space>, votingSupply: Map<string, number>): void {
  // The latest state of each (a proposal may be in a created-after and an open page).
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
}
