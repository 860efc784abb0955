/**
 * @module ingest/providers/snapshot-org/daily-tallies
 * A proposal's tally at the end of each day it was open, from its votes (`votes/<proposal>/<page>`):
 * every vote cast by then, each voter's latest vote counting (Snapshot lets a voter vote again).
 *
 * How a vote's voting power goes to the choices depends on the proposal's type, as Snapshot counts
 * it: single-choice and basic give it all to the chosen one; approval gives it whole to each
 * approved choice; ranked-choice is read by first preferences (the instant-runoff rounds are the
 * final tally's business); weighted and quadratic split it by the weights given. Quadratic voting
 * scores are not proportional to voting power, so a quadratic proposal's days read as a weighted
 * one's would; the day it closed always takes the hub's own final scores.
 */
import { dayOf, parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { addDays } from "../../../time.ts";
import { listOf } from "./hub.ts";
import { P } from "./keys.ts";
import { type Proposal, type Vote, voteSchema } from "./schemas.ts";

/** The saved votes of a proposal, every page, each voter's latest; undefined when none are saved. */
export function savedVotes(raw: RawStore, proposal: string, reject: (what: string, reason: string) => void): Vote[] | undefined {
  const pages = raw.keys(P, `votes/${proposal}/`);
  if (pages.length === 0) return undefined;
  const latest = new Map<string, Vote>();
  for (const k of pages) {
    const list = listOf(raw.load(P, k), "votes");
    if (!list) {
      reject(`snapshot answer ${k}`, "no data.votes list");
      continue;
    }
    for (const vote of parseEach(list, voteSchema, (item, issue) => reject(`vote of ${proposal}`, issue))) {
      const seen = latest.get(vote.voter.toLowerCase());
      if (!seen || seen.created <= vote.created) latest.set(vote.voter.toLowerCase(), vote);
    }
  }
  return [...latest.values()].sort((a, b) => a.created - b.created);
}

/** The shares of one vote's power by choice (0-based), as the proposal's type counts them. */
function creditOf(type: string | null | undefined, choice: Vote["choice"], choices: number): number[] {
  const credit = new Array<number>(choices).fill(0);
  const at = (index: number, share: number) => {
    if (Number.isInteger(index) && index >= 1 && index <= choices) credit[index - 1]! += share;
  };
  if (typeof choice === "number") at(choice, 1);
  else if (Array.isArray(choice)) {
    if (type === "approval") for (const index of choice) at(index, 1);
    else if (choice.length > 0) at(choice[0]!, 1);
  } else {
    const weights = Object.entries(choice).filter(([, w]) => Number.isFinite(w) && w > 0);
    const sum = weights.reduce((total, [, w]) => total + w, 0);
    for (const [index, weight] of weights) at(Number(index), weight / sum);
  }
  return credit;
}

/** The scores by choice at the end of each day from the proposal's start to its end (or `today` while open). */
export function dailyScores(proposal: Proposal, votes: Vote[], today: string | undefined): { day: string; scores: number[]; total: number }[] {
  const first = dayOf(proposal.start);
  const closed = dayOf(proposal.end);
  const last = proposal.state === "active" ? today : closed;
  if (!first || !last || last < first) return [];
  const scores = new Array<number>(proposal.choices.length).fill(0);
  let total = 0;
  let next = 0;
  const out: { day: string; scores: number[]; total: number }[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const end = Date.parse(`${day}T23:59:59Z`) / 1000;
    for (; next < votes.length && votes[next]!.created <= end; next++) {
      const vote = votes[next]!;
      creditOf(proposal.type, vote.choice, scores.length).forEach((share, i) => (scores[i]! += vote.vp * share));
      total += vote.vp;
    }
    out.push({ day, scores: [...scores], total });
  }
  // The day it closed: the hub's own result.
  if (proposal.state === "closed" && proposal.scores && out.length > 0) out[out.length - 1] = { day: last, scores: proposal.scores.map((s) => s ?? 0), total: proposal.scores_total ?? total };
  return out;
}
