/**
 * @module dataset/series/plants
 * Planted anomalies: for each signal type that reads time-series, one case per band (low,
 * moderate, high), each on its own entity, with the raw metric set to the middle of the band, and
 * written down as ground truth. Plants pick from the series tables, which hold generated entities
 * only (coverage.ts): a planted depeg or loss never names a real stablecoin or protocol. The baseline series stay clear of the high bands, so a world built
 * without plants shows what the detectors find in "normal" data.
 *
 * Metric definitions (the detectors of the signals issue compute the same; D is the last day):
 *   yield-anomaly           |apy(D) / mean apy(D-7..D-1) - 1|, %; pools with TVL >= 500K
 *   yield-sustainability    mean apyReward / mean apyBase over D-6..D, x
 *   utilization-stress      utilization(D), %
 *   debt-ceiling-proximity  totalBorrowUsd(D) / debtCeilingUsd(D), %
 *   stablecoin-depeg        |price(D) / peg - 1|, %; circulating >= 1M
 *   stablecoin-supply-shift |circulatingUsd(D) / circulatingUsd(D-7) - 1|, %
 *   revenue-momentum        mean revenue D-29..D / mean revenue D-119..D-30 - 1, %
 *   earnings-health         -mean earnings D-29..D (a daily loss), USD; worsening when D-59..D-30 lost less
 *   usage-price-mismatch    users growth - price growth, % points (means of D-6..D vs D-36..D-30)
 *   capital-efficiency      fees growth - TVL growth, % points (same windows)
 *   treasury-health         ownTokenShare(D), %; runway = (stable + other) / monthly expenses
 *   governance-apathy       turnout of a proposal closed in D-29..D, %
 *   controversial-proposal  margin of a proposal passed in D-29..D, %
 *   power-concentration     sum of the top five holders' shareOfSupply on the last week, %
 *   smart-money-divergence  |largest holder's balance(D) / balance(D-28) - 1|, %
 *   unlock-pressure         sum of shareOfCirculating of unlocks in D+1..D+30, %
 *   cluster-unlock-risk     unlock value in D+1..D+30 / market cap, over a token and the tokens sharing 3+ investors with it, %
 *   exchange-liquidity-risk exchanges listing the token and its widest spread on the last week
 *   insider-accumulation    sum of insider netFlowUsd over D-29..D, USD
 *   sector-rotation         the same summed over a sector's tokens, USD
 *   flow-anomaly            z-score of a token's insider flow on D against D-30..D-1
 *   whale-cross-protocol    distinct protocols a wallet used in D-29..D
 */
import type { Coverage } from "./coverage.ts";
import { recompute } from "./unlocks.ts";
import { type GroundTruth, type SeriesContext, q } from "./series-db.ts";
import { addDays } from "../../time.ts";

type Band = GroundTruth["band"];
const BANDS: Band[] = ["low", "moderate", "high"];

/** A tiny helper: run SQL, get rows as objects. */
async function rows<T>(s: SeriesContext, sql: string): Promise<T[]> {
  return (await s.c.runAndReadAll(sql)).getRowObjectsJS() as T[];
}

/** Deterministic pick of an unplanted candidate (candidates come sorted by id); undefined when none is left. */
function pick(s: SeriesContext, candidates: string[], label: string): string | undefined {
  const free = candidates.filter((c) => !s.planted.has(c));
  if (free.length === 0) {
    // Small worlds may lack a fitting entity; the case is reported, not invented.
    s.skipped.push(label);
    return undefined;
  }
  const chosen = free[Math.floor(s.rng.next() * free.length)]!;
  s.planted.add(chosen);
  return chosen;
}

function record(s: SeriesContext, truth: GroundTruth): void {
  s.truth.push(truth);
}

const D = "(SELECT max(date) FROM days)";
const day = (offset: number) => `(${D} - INTERVAL ${offset} DAY)::DATE`;

/** Stablecoin plants run before token series are built, so token prices show the depeg too. */
export async function plantStablecoins(s: SeriesContext): Promise<void> {
  const eligible = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM stablecoin WHERE date = ${D} AND "circulatingUsd" >= 5e6 ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const dev = [0.0075, 0.015, 0.035][i]!;
    const id = pick(s, eligible, "stablecoin-depeg");
    if (!id) continue;
    await s.c.run(`UPDATE stablecoin SET price = price * (1 - ${dev}) / (price / CASE WHEN "pegCurrency" = 'EUR' THEN 1.08 ELSE 1 END) WHERE entity_id = ${q(id)} AND date = ${D}`);
    record(s, { signal_type: "stablecoin-depeg", band, entities: [id], metric: "peg_deviation_pct", value: dev * 100, table: "stablecoin", note: "price below its peg on the last day" });
  }
  for (const [i, band] of BANDS.entries()) {
    const shift = [0.125, 0.22, 0.45][i]!;
    const id = pick(s, eligible, "stablecoin-supply-shift");
    if (!id) continue;
    // Supply climbs over the last week from the level of the day a week before, which stays as it
    // was: the change is the planted one whatever the baseline did that week.
    await s.c.run(`UPDATE stablecoin s SET "circulatingUsd" = w."circulatingUsd" * (1 + ${shift} * (7 - date_diff('day', s.date, ${D})) / 7.0)
      FROM (SELECT "circulatingUsd" FROM stablecoin WHERE entity_id = ${q(id)} AND date = ${day(7)}) w
      WHERE s.entity_id = ${q(id)} AND s.date > ${day(7)}`);
    record(s, { signal_type: "stablecoin-supply-shift", band, entities: [id], metric: "supply_change_7d_pct", value: shift * 100, table: "stablecoin", note: "circulating supply rises over the last seven days" });
  }
}

/** Unlock plants are scheduled events (after D), added before the unlocks table is written. */
export function plantUnlocks(s: SeriesContext, coverage: Coverage, asOf: string): void {
  const inWindow = (date: string) => date > asOf && date <= addDays(asOf, 30);
  const upcoming = (token: string) =>
    (coverage.vesting.get(token)?.events ?? []).filter((e) => inWindow(e.date)).reduce((sum, e) => sum + e.shareOfCirculating, 0);
  const eligible = [...coverage.vesting.keys()].filter((t) => upcoming(t) < 0.03).sort();
  const addLump = (token: string, targetShareOfCirculating: number, note: string) => {
    const vesting = coverage.vesting.get(token)!;
    const lump = Math.max(0, targetShareOfCirculating - upcoming(token)) * vesting.circulatingNow;
    const schedule = vesting.events.find((e) => e.group === "team")?.schedule ?? vesting.events[0]!.schedule;
    vesting.events.push({ token, date: addDays(asOf, 10), schedule, group: "team", share: lump, shareOfCirculating: 0 });
    vesting.circulatingNow = recompute(vesting.float, vesting.events, asOf);
    return note;
  };
  for (const [i, band] of BANDS.entries()) {
    const target = [0.065, 0.115, 0.22][i]!;
    const id = pick(s, eligible, "unlock-pressure");
    if (!id) continue;
    addLump(id, target, "cliff");
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
      addLump(member, target, "cluster");
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

/** Plants on protocol fundamentals (run after token series: one reshapes a token's price). */
export async function plantProtocols(s: SeriesContext, coverage: Coverage): Promise<void> {
  const revenueOf = await rows<{ entity_id: string; revenue: number; fees: number; users: number }>(
    s,
    `SELECT entity_id, avg("revenueUsd") AS revenue, avg("feesUsd") AS fees, avg("dailyUsers") AS users
     FROM protocol WHERE date > ${day(120)} GROUP BY entity_id ORDER BY entity_id`,
  );
  /**
   * Sets a protocol's columns over the last `days` to their mean there times `shape` (an SQL
   * expression of p.date): the baseline's own ups and downs no longer move the planted metric.
   */
  const flatten = async (id: string, days: number, columns: string[], shape: string) => {
    const set = columns.map((c) => `"${c}" = m."${c}" * (${shape})`).join(", ");
    const means = columns.map((c) => `avg("${c}") AS "${c}"`).join(", ");
    await s.c.run(`UPDATE protocol p SET ${set} FROM (SELECT ${means} FROM protocol WHERE entity_id = ${q(id)} AND date > ${day(days)}) m
      WHERE p.entity_id = ${q(id)} AND p.date > ${day(days)}`);
  };
  const FLOWS = ["feesUsd", "revenueUsd", "incentivesUsd", "earningsUsd"];

  const growing = revenueOf.filter((r) => r.revenue >= 1000).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, growing, "revenue-momentum");
    if (!id) continue;
    const factor = [1.45, 1.8, 2.6][i]!;
    // Flat, then the jump over the last 30 days; for high, a strong trend before the jump: the 90
    // days before rise by up to 30%.
    const before = band === "high" ? `(1 + 0.3 * (89 - date_diff('day', p.date, ${day(30)})) / 89.0)` : "1";
    await flatten(id, 120, FLOWS, `CASE WHEN p.date > ${day(30)} THEN ${factor} ELSE ${before} END`);
    const value = band === "high" ? (factor / 1.15 - 1) * 100 : (factor - 1) * 100;
    record(s, { signal_type: "revenue-momentum", band, entities: [id], metric: "revenue_30d_vs_prior_90d_pct", value, table: "protocol", note: band === "high" ? "revenue jumps after a 90-day rise" : "revenue jumps over the last 30 days" });
  }

  const earners = revenueOf.map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, earners, "earnings-health");
    if (!id) continue;
    const loss = [25_000, 70_000, 160_000][i]!;
    const before = band === "high" ? loss * 0.6 : loss;
    await s.c.run(`UPDATE protocol SET "incentivesUsd" = "revenueUsd" + CASE WHEN date > ${day(30)} THEN ${loss} ELSE ${before} END,
      "earningsUsd" = -(CASE WHEN date > ${day(30)} THEN ${loss} ELSE ${before} END) WHERE entity_id = ${q(id)} AND date > ${day(60)}`);
    record(s, { signal_type: "earnings-health", band, entities: [id], metric: "daily_loss_usd", value: loss, table: "protocol", note: band === "high" ? "losses deepen from 96K to 160K a day" : "steady daily losses over the last 60 days" });
  }

  const feeEarners = revenueOf.filter((r) => r.fees >= 1000).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, feeEarners, "capital-efficiency");
    if (!id) continue;
    const factor = [1.28, 1.42, 1.8][i]!;
    // Fees (and revenue) rise by the factor over the last week while TVL stays flat.
    await flatten(id, 37, [...FLOWS, "tvlUsd"], "1");
    await flatten(id, 7, FLOWS, String(factor));
    record(s, { signal_type: "capital-efficiency", band, entities: [id], metric: "fees_growth_minus_tvl_growth_pp", value: (factor - 1) * 100, table: "protocol", note: "fees rise over the last week while TVL holds" });
  }

  // Usage up, price flat: the protocol's own token stops moving over the comparison window.
  // A token several versions of a protocol share has one issuer in the graph's reading (the
  // first id, as the scan's token_issuer takes it): plant on that version, where the scan looks.
  const issuerOf = new Map<string, string>();
  for (const p of coverage.protocols) if (p.token && (!issuerOf.has(p.token) || p.id < issuerOf.get(p.token)!)) issuerOf.set(p.token, p.id);
  const withToken = new Map(coverage.protocols.filter((p) => p.token && coverage.vesting.has(p.token) && issuerOf.get(p.token) === p.id).map((p) => [p.id, p.token!]));
  const users = revenueOf.filter((r) => r.users >= 500 && withToken.has(r.entity_id) && !s.planted.has(withToken.get(r.entity_id)!)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, users, "usage-price-mismatch");
    if (!id) continue;
    const token = withToken.get(id)!;
    s.planted.add(token);
    const growth = [0.15, 0.3, 0.6][i]!;
    // Growth measured against the baseline week as it is (noise included): the last week ends at exactly (1 + growth) x it.
    await s.c.run(`UPDATE protocol p SET "dailyUsers" = round(p."dailyUsers" * (1 + (k.k - 1) * least(1, (30 - date_diff('day', p.date, ${D})) / 24.0)))
      FROM (SELECT (1 + ${growth}) * avg("dailyUsers") FILTER (WHERE date <= ${day(30)}) / avg("dailyUsers") FILTER (WHERE date > ${day(7)}) AS k
            FROM protocol WHERE entity_id = ${q(id)} AND date > ${day(37)}) k
      WHERE p.entity_id = ${q(id)} AND p.date > ${day(30)}`);
    await s.c.run(`UPDATE token t SET "currentPrice" = b.price, "marketCap" = b.price * t."circulatingSupply"
      FROM (SELECT "currentPrice" AS price FROM token WHERE entity_id = ${q(token)} AND date = ${day(37)}) b
      WHERE t.entity_id = ${q(token)} AND t.date > ${day(37)}`);
    record(s, { signal_type: "usage-price-mismatch", band, entities: [id, token], metric: "users_growth_minus_price_growth_pp", value: growth * 100, table: "protocol", note: "users grow over 30 days while the token's price stays flat" });
  }
}

export async function plantPools(s: SeriesContext): Promise<void> {
  const big = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM pool WHERE date = ${D} AND "tvlUsd" >= 2e6 ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, big, "yield-anomaly");
    if (!id) continue;
    const change = [1.5, 3.5, 8][i]!;
    await s.c.run(`UPDATE pool p SET "apyReward" = b.avg_apy * ${1 + change} - p."apyBase", "apy" = b.avg_apy * ${1 + change}
      FROM (SELECT avg(apy) AS avg_apy FROM pool WHERE entity_id = ${q(id)} AND date >= ${day(7)} AND date < ${D}) b
      WHERE p.entity_id = ${q(id)} AND p.date = ${D}`);
    record(s, { signal_type: "yield-anomaly", band, entities: [id], metric: "apy_change_pct", value: change * 100, table: "pool", note: "APY spikes on the last day" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, big, "yield-sustainability");
    if (!id) continue;
    const ratio = [6.5, 11, 20][i]!;
    // Three weeks of high rewards: a level, not a one-day spike.
    await s.c.run(`UPDATE pool SET "apyReward" = "apyBase" * ${ratio}, "apy" = "apyBase" * ${1 + ratio} WHERE entity_id = ${q(id)} AND date > ${day(21)}`);
    record(s, { signal_type: "yield-sustainability", band, entities: [id], metric: "reward_to_base_apy_ratio", value: ratio, table: "pool", note: "rewards many times the base yield for three weeks" });
  }
}

export async function plantLending(s: SeriesContext): Promise<void> {
  const plain = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM lending WHERE date = ${D} AND "totalSupplyUsd" >= 5e6 AND "debtCeilingUsd" IS NULL ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, plain, "utilization-stress");
    if (!id) continue;
    const u = [0.875, 0.925, 0.975][i]!;
    await s.c.run(`UPDATE lending l SET utilization = ${u}, "totalBorrowUsd" = l."totalSupplyUsd" * ${u},
      "borrowApy" = p.slope1 + p.slope2 * (${u} - 0.8) / 0.2, "supplyApy" = (p.slope1 + p.slope2 * (${u} - 0.8) / 0.2) * ${u} * (1 - p.reserve)
      FROM lending_params p WHERE p.entity_id = l.entity_id AND l.entity_id = ${q(id)} AND l.date > ${day(3)}`);
    record(s, { signal_type: "utilization-stress", band, entities: [id], metric: "utilization_pct", value: u * 100, table: "lending", note: "utilization above the kink for the last three days" });
  }
  const capped = (await rows<{ entity_id: string }>(s, `SELECT entity_id FROM lending WHERE date = ${D} AND "debtCeilingUsd" IS NOT NULL AND "totalSupplyUsd" >= 1e6 ORDER BY entity_id`)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, capped, "debt-ceiling-proximity");
    if (!id) continue;
    const use = [0.875, 0.925, 0.975][i]!;
    // Borrowing nears the ceiling; supply grows with it so utilization stays at 70%.
    await s.c.run(`UPDATE lending SET "totalBorrowUsd" = "debtCeilingUsd" * ${use},
      "totalSupplyUsd" = greatest("totalSupplyUsd", "debtCeilingUsd" * ${use} / 0.7),
      utilization = "debtCeilingUsd" * ${use} / greatest("totalSupplyUsd", "debtCeilingUsd" * ${use} / 0.7)
      WHERE entity_id = ${q(id)} AND date > ${day(3)}`);
    record(s, { signal_type: "debt-ceiling-proximity", band, entities: [id], metric: "borrow_to_ceiling_pct", value: use * 100, table: "lending", note: "borrowing close to the governance debt ceiling" });
  }
}

export async function plantTreasuries(s: SeriesContext): Promise<void> {
  const eligible = (await rows<{ entity_id: string; token_id: string }>(
    s,
    `SELECT entity_id, token_id FROM treasury WHERE date = ${D} AND "totalUsd" >= 1e6 ORDER BY entity_id`,
  )).filter((r) => !s.planted.has(r.token_id)).map((r) => r.entity_id);
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, eligible, "treasury-health");
    if (!id) continue;
    const share = [0.85, 0.925, 0.97][i]!;
    // Reserves shrink until the own token is `share` of the treasury; low and moderate keep two years of runway.
    await s.c.run(`UPDATE treasury SET "stablecoinUsd" = "stablecoinUsd" * k, "otherUsd" = "otherUsd" * k,
        "totalUsd" = "ownTokenUsd" / ${share}, "ownTokenShare" = ${share},
        "monthlyExpensesUsd" = CASE WHEN ${band === "high" ? "TRUE" : "FALSE"} THEN "monthlyExpensesUsd" ELSE ("stablecoinUsd" + "otherUsd") * k / 24 END
      FROM (SELECT entity_id AS eid, date AS d, ("ownTokenUsd" * ${(1 - share) / share}) / ("stablecoinUsd" + "otherUsd") AS k FROM treasury WHERE entity_id = ${q(id)}) f
      WHERE entity_id = f.eid AND date = f.d AND date > ${day(7)}`);
    record(s, { signal_type: "treasury-health", band, entities: [id], metric: "own_token_share_pct", value: share * 100, table: "treasury", note: band === "high" ? "almost all own token, reserves for weeks" : "reserves sold down, two years of runway left" });
  }
}

export async function plantHolders(s: SeriesContext): Promise<void> {
  const tokens = (await rows<{ entity_id: string; top5: number }>(
    s,
    `SELECT entity_id, sum("shareOfSupply") AS top5 FROM holders WHERE date = ${D} AND rank <= 5 GROUP BY entity_id ORDER BY entity_id`,
  )).filter((r) => !s.planted.has(r.entity_id));
  const top5 = new Map(tokens.map((t) => [t.entity_id, t.top5]));
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, tokens.map((t) => t.entity_id), "power-concentration");
    if (!id) continue;
    const target = [0.45, 0.6, 0.8][i]!;
    // The whole history scales, so balances do not jump (which would read as smart money moving).
    const k = target / top5.get(id)!;
    await s.c.run(`UPDATE holders SET balance = balance * ${k}, "shareOfSupply" = "shareOfSupply" * ${k} WHERE entity_id = ${q(id)} AND rank <= 5`);
    record(s, { signal_type: "power-concentration", band, entities: [id], metric: "top5_holder_share_pct", value: target * 100, table: "holders", note: "the five largest holders own most of the supply" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, tokens.map((t) => t.entity_id), "smart-money-divergence");
    if (!id) continue;
    const change = [0.15, 0.3, 0.6][i]!;
    await s.c.run(`UPDATE holders SET balance = balance * ${1 + change}, "shareOfSupply" = "shareOfSupply" * ${1 + change}
      WHERE entity_id = ${q(id)} AND rank = 1 AND date = ${D}`);
    record(s, { signal_type: "smart-money-divergence", band, entities: [id], metric: "top_holder_balance_change_30d_pct", value: change * 100, table: "holders", note: "the largest holder adds to its balance in the last week" });
  }
}

export async function plantListings(s: SeriesContext): Promise<void> {
  const counts = await rows<{ entity_id: string; n: bigint }>(
    s,
    `SELECT l.entity_id, count(*) AS n FROM listings l JOIN token t ON t.entity_id = l.entity_id AND t.date = l.date
     WHERE l.date = ${D} AND t."marketCap" >= 5e6 GROUP BY l.entity_id ORDER BY l.entity_id`,
  );
  const withCount = (n: number) => counts.filter((c) => Number(c.n) === n).map((c) => c.entity_id);
  const cases: [Band, number, number, string][] = [
    ["low", 2, 0.6, "listed on two exchanges with a normal spread"],
    ["moderate", 2, 1.5, "listed on two exchanges with a widening spread"],
    ["high", 1, 4, "listed on a single exchange with a wide spread"],
  ];
  for (const [band, exchanges, spread, note] of cases) {
    const id = pick(s, withCount(exchanges), "exchange-liquidity-risk");
    if (!id) continue;
    await s.c.run(`UPDATE listings SET "spreadPct" = ${spread} WHERE entity_id = ${q(id)} AND date = ${D}`);
    record(s, { signal_type: "exchange-liquidity-risk", band, entities: [id], metric: "widest_spread_pct", value: spread, table: "listings", note: `${note} (${exchanges} exchange${exchanges > 1 ? "s" : ""})` });
  }
}

/** Insider flow plants: accumulation by a few insiders, whole sectors buying, a one-day flow spike. */
export async function plantFlows(s: SeriesContext, coverage: Coverage): Promise<void> {
  const insidersOf = new Map<string, { wallet: string; holder: string; role: string }[]>();
  for (const insider of s.ctx.insiders) {
    if (!coverage.vesting.has(insider.token)) continue;
    const list = insidersOf.get(insider.token) ?? [];
    list.push({ wallet: insider.wallet, holder: insider.holder, role: insider.role });
    insidersOf.set(insider.token, list);
  }
  const eligible = [...insidersOf.keys()].filter((t) => insidersOf.get(t)!.length >= 2).sort();
  const insert = async (token: string, flowsByDay: [number, number][]) => {
    const insiders = insidersOf.get(token)!;
    const values = flowsByDay.map(([offset, usd], i) => {
      const insider = insiders[i % insiders.length]!;
      return `(${q(token)}, ${day(offset)}, ${q(insider.wallet)}, ${q(insider.holder)}, ${q(insider.role)}, ${usd})`;
    });
    await s.c.run(`INSERT INTO insider_flows SELECT v.entity_id, v.date, v.wallet, v.holder_id, v.holder_role, v.flow,
        coalesce((SELECT max(balance) FROM insider_flows f WHERE f.entity_id = v.entity_id AND f.wallet = v.wallet), 0) + v.flow / t."currentPrice"
      FROM (VALUES ${values.join(", ")}) v(entity_id, date, wallet, holder_id, holder_role, flow)
      JOIN token t ON t.entity_id = v.entity_id AND t.date = v.date`);
  };

  const sectorOfPlant = new Set<string>();
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, eligible, "insider-accumulation");
    if (!id) continue;
    const total = [150_000, 500_000, 1_800_000][i]!;
    await insert(id, [1, 2, 3, 4, 5].map((offset): [number, number] => [offset, total / 5]));
    sectorOfPlant.add(coverage.sectorOf.get(id) ?? "");
    record(s, { signal_type: "insider-accumulation", band, entities: [id], metric: "insider_net_flow_30d_usd", value: total, table: "insider_flows", note: "insiders buy over five days, no selling" });
  }
  for (const [i, band] of BANDS.entries()) {
    const id = pick(s, eligible, "flow-anomaly");
    if (!id) continue;
    const z = [1.75, 2.5, 4.5][i]!;
    // Thirty days of steady flows (40K and 80K in turn: mean 60K, sd 20K), then a spike on the last day.
    const flows: [number, number][] = Array.from({ length: 30 }, (_, k) => [k + 1, k % 2 === 0 ? 40_000 : 80_000]);
    flows.push([0, 60_000 + z * 20_000]);
    await insert(id, flows);
    sectorOfPlant.add(coverage.sectorOf.get(id) ?? "");
    record(s, { signal_type: "flow-anomaly", band, entities: [id], metric: "insider_flow_z_score", value: z, table: "insider_flows", note: "a day's insider flow far above its 30-day pattern" });
  }
  const bySector = new Map<string, string[]>();
  for (const token of eligible) {
    const sector = coverage.sectorOf.get(token);
    if (!sector || s.planted.has(token)) continue;
    bySector.set(sector, [...(bySector.get(sector) ?? []), token]);
  }
  const sectors = [...bySector.keys()].filter((sector) => !sectorOfPlant.has(sector) && bySector.get(sector)!.length >= 3).sort();
  for (const [i, band] of BANDS.entries()) {
    const total = [750_000, 2_500_000, 7_000_000][i]!;
    const sector = sectors[i];
    if (!sector) {
      s.skipped.push("sector-rotation");
      continue;
    }
    const tokens = bySector.get(sector)!.slice(0, 3);
    for (const token of tokens) {
      s.planted.add(token);
      await insert(token, [3, 6, 9, 12, 15].map((offset): [number, number] => [offset, total / tokens.length / 5]));
    }
    record(s, { signal_type: "sector-rotation", band, entities: tokens, metric: "sector_insider_net_flow_30d_usd", value: total, table: "insider_flows", note: `insiders across the ${sector} sector buy` });
  }
}

export async function plantWhales(s: SeriesContext, coverage: Coverage): Promise<void> {
  const protocols = coverage.protocols.map((p) => p.id).sort();
  for (const [i, band] of BANDS.entries()) {
    const count = [8, 12, 18][i]!;
    const wallet = `eip155:1:0x${s.rng.hex(20)}`;
    const used = s.rng.sample(protocols, count);
    const values = used.map((protocol, k) => `(${q(protocol)}, ${day(k % 28)}, ${q(wallet)}, ${250_000 + k * 10_000}, 3::BIGINT)`);
    await s.c.run(`INSERT INTO wallet_activity VALUES ${values.join(", ")}`);
    record(s, { signal_type: "whale-cross-protocol", band, entities: [wallet], metric: "distinct_protocols_30d", value: count, table: "wallet_activity", note: "a large wallet moves through many protocols in a month" });
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
