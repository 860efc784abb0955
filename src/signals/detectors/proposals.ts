/**
 * @module signals/detectors/proposals
 * Proposals that closed in the 30 days up to the as-of date, with their final tally: shared by the
 * two governance detectors (not a detector itself).
 */
import { type ScanContext } from "../detector.ts";
import { rowsOf } from "../kit.ts";

export interface ClosedProposal {
  proposal: string;
  org: string;
  src: string;
  status: string;
  closed: string;
  turnout: number;
  margin: number;
  for: number;
  against: number;
  votes: number;
}

export function closedProposals(ctx: ScanContext, where: string, statuses: string[]): Promise<ClosedProposal[]> {
  return rowsOf<ClosedProposal>(
    ctx.c,
    `SELECT * FROM (
       SELECT proposal_id AS proposal, entity_id AS org, source_table AS src, status, date::VARCHAR AS closed, turnout, margin,
         "votesFor" AS for, "votesAgainst" AS against, "votesFor" + "votesAgainst" + "votesAbstain" AS votes
       FROM governance WHERE date <= ${ctx.day(0)}
       QUALIFY row_number() OVER (PARTITION BY proposal_id ORDER BY date DESC) = 1)
     WHERE status IN (${statuses.map((s) => `'${s}'`).join(", ")}) AND closed::DATE > ${ctx.day(30)} AND ${where}`,
  );
}
