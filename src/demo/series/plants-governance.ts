/**
 * @module demo/series/plants-governance
 * Plants on scheduled unlocks and governance (governance.ts): a cliff unlock, simultaneous unlocks
 * across tokens sharing investors, a proposal closed with very few votes or passed by a thin
 * margin. Metric definitions: plants.ts.
 */
import { addDays } from "../../time.ts";
import type { Coverage } from "./coverage.ts";
import { BANDS, day, pick, record, rows } from "./plants.ts";
import { type SeriesContext, q } from "./series-db.ts";
import { recompute } from "./unlocks.ts";

/** Unlock plants are scheduled events (after D), added before the unlocks table is written. */
export function plantUnlocks(s: SeriesContext, coverage: Coverage, asOf: string): void {
  const inWindow = (date: string) => date > asOf && date <= addDays(asOf, 30);
  const upcoming = (token: string) =>
    (coverage.vesting.get(token)?.events ?? []).filter((e) => inWindow(e.date)).reduce((sum, e) => sum + e.shareOfCirculating, 0);
  const eligible = [...coverage.vesting.keys()].filter((t) => upcoming(t) < 0.03).sort();
  const addLump = (token: string, targetShareOfCirculating: number) => {
    const vesting = coverage.vesting.get(token)!;
    const lump = Math.max(0, targetShareOfCirculating - upcoming(token)) * vesting.circulatingNow;
    const schedule = vesting.events.find((e) => e.group === "team")?.schedule ?? vesting.events[0]!.schedule;
    vesting.events.push({ token, date: addDays(asOf, 10), schedule, group: "team", share: lump, shareOfCirculating: 0 });
    vesting.circulatingNow = recompute(vesting.float, vesting.events, asOf);
  };
  for (const [i, band] of BANDS.entries()) {
    const target = [0.065, 0.115, 0.22][i]!;
    const id = pick(s, eligible, "unlock-pressure");
    if (!id) continue;
    addLump(id, target);
    record(s, { signal_type: "unlock-pressure", band, entities: [id], metric: "upcoming_unlocks_30d_pct_of_circulating", value: target * 100, table: "unlocks", note: "a cliff unlock ten days after the last day" });
  }
  // Clusters: a token and every vesting token whose protocol shares 3+ investors with its protocol
  // (tokens with unlocks of their own included: a detector sees them too; the plant tops them up).
  const protocolOf = new Map(s.ctx.protocols.filter((p) => p.token).map((p) => [p.token!, p.id]));
  const tokensOfInvestor = new Map<string, string[]>();
  for (const token of [...coverage.vesting.keys()].sort()) {
    for (const investor of s.ctx.investors.get(protocolOf.get(token) ?? "") ?? []) {
      tokensOfInvestor.set(investor, [...(tokensOfInvestor.get(investor) ?? []), token]);
    }
  }
  const clusters = new Map<string, string[]>();
  const cluster = (token: string): string[] => {
    let members = clusters.get(token);
    if (!members) {
      const shared = new Map<string, number>();
      for (const investor of s.ctx.investors.get(protocolOf.get(token) ?? "") ?? []) {
        for (const other of tokensOfInvestor.get(investor) ?? []) if (other !== token) shared.set(other, (shared.get(other) ?? 0) + 1);
      }
      members = [...shared].filter(([, n]) => n >= 3).map(([other]) => other).sort();
      clusters.set(token, members);
    }
    return members;
  };
  const seeds = eligible.filter((t) => !s.planted.has(t) && cluster(t).length >= 1);
  for (const [i, band] of BANDS.entries()) {
    const target = [0.065, 0.115, 0.22][i]!;
    const seed = seeds.find((t) => !s.planted.has(t) && cluster(t).every((m) => !s.planted.has(m) && upcoming(m) < target / 2));
    if (!seed) {
      s.skipped.push("cluster-unlock-risk");
      continue;
    }
    const members = [seed, ...cluster(seed)];
    for (const member of members) {
      s.planted.add(member);
      addLump(member, target);
      // Each member's lump is an unlock of `target` of its own circulating supply: an unlock-pressure
      // case at the same band, planted as surely as the cluster's, so the ground truth says so (left
      // out, the fourteen members of the high cluster read as fourteen false high alarms).
      record(s, { signal_type: "unlock-pressure", band, entities: [member], metric: "upcoming_unlocks_30d_pct_of_circulating", value: target * 100, table: "unlocks", note: `a member's share of the cluster's simultaneous unlocks (seed ${seed})` });
    }
    record(s, {
      signal_type: "cluster-unlock-risk",
      band,
      entities: members,
      metric: "cluster_upcoming_unlock_value_pct_of_market_cap",
      value: target * 100,
      table: "unlocks",
      note: `simultaneous unlocks across tokens whose protocols share 3+ investors (seed ${seed})`,
    });
  }
}

/** Governance plants: recently closed proposals with very low turnout, or passed by a thin margin. */
export async function plantGovernance(s: SeriesContext): Promise<void> {
  const recent = (await rows<{ proposal_id: string }>(
    s,
    `SELECT proposal_id FROM governance WHERE status = 'passed' AND date > ${day(30)} AND margin >= 0.25 ORDER BY proposal_id`,
  )).map((r) => r.proposal_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, recent, "governance-apathy");
    if (!id) continue;
    const turnout = [0.04, 0.02, 0.005][i]!;
    await s.c.run(`UPDATE governance g SET "votesFor" = "votesFor" * f.k, "votesAgainst" = "votesAgainst" * f.k, "votesAbstain" = "votesAbstain" * f.k, turnout = turnout * f.k
      FROM (SELECT ${turnout} / max(turnout) AS k FROM governance WHERE proposal_id = ${q(id)}) f WHERE g.proposal_id = ${q(id)}`);
    record(s, { signal_type: "governance-apathy", band, entities: [id], metric: "turnout_pct", value: turnout * 100, table: "governance", note: "a proposal closed with very few votes" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, recent, "controversial-proposal");
    if (!id) continue;
    const margin = [0.16, 0.08, 0.03][i]!;
    await s.c.run(`UPDATE governance SET "votesFor" = ("votesFor" + "votesAgainst") * ${(1 + margin) / 2},
      "votesAgainst" = ("votesFor" + "votesAgainst") * ${(1 - margin) / 2}, margin = ${margin} WHERE proposal_id = ${q(id)}`);
    record(s, { signal_type: "controversial-proposal", band, entities: [id], metric: "passing_margin_pct", value: margin * 100, table: "governance", note: "a proposal passed by a thin margin" });
  }
}
