/**
 * @module ingest/providers/snapshot-org/tally
 * A proposal's result from its choices and scores: votes for, against and abstaining, the margin,
 * and whether it passed.
 */
import type { Proposal } from "./schemas.ts";

type Side = "for" | "against" | "abstain";

/** Which side each choice counts for: by its label, else the first choice for and the second against. */
function sidesOf(choices: (string | null)[]): (Side | undefined)[] {
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

interface Tally {
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

/** Votes cast over the voting token's circulating supply (at most 1); null without an honest supply. */
export function turnoutOf(cast: number | null | undefined, supply: number | undefined): number | null {
  if (!supply || supply <= 0 || typeof cast !== "number" || !Number.isFinite(cast) || cast < 0) return null;
  return Math.min(1, cast / supply);
}
