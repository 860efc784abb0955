/**
 * @module demo/series/governance
 * Vote tallies of every governance proposal in the graph: votes accumulate over a seven-day window
 * (front-loaded), turnout is votes over the token's circulating supply, and the last day carries
 * the graph's result. Active proposals vote until the as-of date. Unlocks get their values here
 * too, once token prices exist.
 */
import type { Coverage } from "./coverage.ts";
import { type SeriesContext, loadRows } from "./series-db.ts";

export async function governanceSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const { rng, ctx } = s;
  const covered = new Set(coverage.tokens.map((t) => t.id));
  const rows: (string | number)[][] = [];
  for (const p of ctx.proposals) {
    if (!covered.has(p.token)) continue;
    const margin = p.status === "passed" ? 0.25 + 0.7 * rng.next() : p.status === "failed" ? -(0.25 + 0.7 * rng.next()) : rng.normal(0.3, 0.3);
    const lastDay = p.status === "active" ? 14 : p.status === "cancelled" ? 1 : 6;
    rows.push([p.owner, p.id, p.token, p.announced, p.status, 0.06 + 0.29 * rng.next(), Math.max(-0.99, Math.min(0.99, margin)), 0.05 * rng.next(), lastDay]);
  }
  await loadRows(
    s.c,
    "gov_params",
    { entity_id: "VARCHAR", proposal_id: "VARCHAR", token_id: "VARCHAR", start: "DATE", status: "VARCHAR", turnout: "DOUBLE", margin: "DOUBLE", abstain: "DOUBLE", last_day: "DOUBLE" },
    rows,
  );
  await s.c.run(`
    CREATE TABLE governance AS
    WITH tally AS (
      SELECT p.*, k.k, (p.start + k.k::INTEGER)::DATE AS date,
        p.turnout * (1 - power(1 - (k.k + 1) / (p.last_day + 1), 2)) AS progress
      FROM gov_params p CROSS JOIN range(15) k(k)
      WHERE k.k <= p.last_day AND p.start + k.k::INTEGER <= (SELECT max(date) FROM days)
    )
    SELECT t.entity_id, t.date, t.proposal_id,
      t.progress * tok."circulatingSupply" * (1 - t.abstain) * (1 + t.margin) / 2 AS "votesFor",
      t.progress * tok."circulatingSupply" * (1 - t.abstain) * (1 - t.margin) / 2 AS "votesAgainst",
      t.progress * tok."circulatingSupply" * t.abstain AS "votesAbstain",
      t.progress AS turnout, t.margin,
      CASE WHEN t.k = t.last_day AND t.status <> 'active' THEN t.status ELSE 'active' END AS status
    FROM tally t JOIN token tok ON tok.entity_id = t.token_id AND tok.date = t.date`);
}

export async function unlockSeries(s: SeriesContext, coverage: Coverage): Promise<void> {
  const rows: (string | number)[][] = [];
  for (const vesting of coverage.vesting.values()) {
    for (const e of vesting.events) rows.push([e.token, e.date, e.schedule, e.group, e.share, e.shareOfCirculating]);
  }
  await loadRows(
    s.c,
    "unlock_events",
    { entity_id: "VARCHAR", date: "DATE", schedule_id: "VARCHAR", allocation_group: "VARCHAR", share: "DOUBLE", share_circ: "DOUBLE" },
    rows,
  );
  // Past events are valued at that day's price; scheduled ones at the latest price.
  await s.c.run(`
    CREATE TABLE unlocks AS
    WITH latest AS (SELECT entity_id, arg_max("currentPrice", date) AS price FROM token GROUP BY entity_id)
    SELECT e.entity_id, e.date, e.schedule_id, e.allocation_group, e.share * p.total AS amount,
      e.share * p.total * coalesce(t."currentPrice", l.price) AS "valueUsd",
      e.share AS "shareOfSupply", e.share_circ AS "shareOfCirculating"
    FROM unlock_events e JOIN token_params p USING (entity_id)
    LEFT JOIN token t ON t.entity_id = e.entity_id AND t.date = e.date
    LEFT JOIN latest l ON l.entity_id = e.entity_id`);
}
