/**
 * @module ingest/providers/defillama/parse-raises
 * Funding rounds, their investors, and who invested in which protocol.
 *
 * Raises come from two answers with the same records: the paid `/raises` list (every raise, with a
 * key) and the `raises` of each protocol history (`/protocol/<slug>`, free: the largest protocols'
 * own). A raise is one round however many answers carry it (a family's children all list the
 * family's raises). Each investor of a round `investedIn` the protocol it names, taken to the top
 * of its family: the family issues the token, so that is where a token's backers are found
 * (signals/graph-facts).
 */
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key } from "../../records.ts";
import { dayOf, parseEach } from "../../connector.ts";
import { investorKey, P, protocolKey } from "./keys.ts";
import { attributes, type Known, label, listOf, loadSaved, Relations, usable } from "./parse-common.ts";
import { type Raise, raiseSchema, record } from "./schemas.ts";

interface Found {
  raise: Raise;
  day: string;
  /** The protocol whose history listed it (when it came from one). */
  listedBy?: string;
}

export function parseRaises(raw: RawStore, out: ProviderOutput, known: Known): void {
  const found = new Map<string, Found>();
  const take = (list: unknown[], what: string, listedBy?: string) => {
    for (const raise of parseEach(list, raiseSchema, (item, issue) => out.reject(`raise ${label(item, "name")} (${what})`, issue))) {
      const day = dayOf(raise.date);
      if (!day) {
        out.reject(`raise ${JSON.stringify(raise.name)} (${what})`, "date: not a time");
        continue;
      }
      const id = roundKey(raise, day);
      if (!found.has(id)) found.set(id, { raise, day, listedBy });
    }
  };
  const saved = loadSaved(raw, out, "raises");
  const list = saved && listOf(out, "raises", saved.body, "raises");
  if (list) take(list, "raises");
  for (const rawKey of raw.keys(P, "protocol/")) {
    const history = loadSaved(raw, out, rawKey);
    const own = history && record(history.body).raises;
    if (Array.isArray(own)) take(own, rawKey, rawKey.slice("protocol/".length));
  }

  const investors = new Set<string>();
  for (const [id, { raise, day, listedBy }] of found) {
    const round = usable(raise.round);
    // defillamaId holds a protocol id ("2198") or a parent id ("parent#uniswap"), not a slug.
    const named = raise.defillamaId === null || raise.defillamaId === undefined ? undefined : known.slugById.get(String(raise.defillamaId));
    const slug = named ?? listedBy;
    const family = slug ? (known.familyOf.get(slug) ?? slug) : undefined;
    const relations = new Relations();
    relations.add("raisedBy", slug && protocolKey(slug));
    const lead = new Set(names(raise.leadInvestors));
    for (const name of lead) relations.add("leadInvestor", investorKey(name));
    for (const name of names(raise.otherInvestors)) if (!lead.has(name)) relations.add("investor", investorKey(name));
    for (const name of [...lead, ...names(raise.otherInvestors)]) {
      if (family) out.link(investorKey(name), "investedIn", protocolKey(family));
      if (investors.has(investorKey(name))) continue;
      investors.add(investorKey(name));
      out.entity({ type: "Organization", labels: ["VentureFund"], keys: [investorKey(name)], name });
    }
    out.entity({
      type: "FundingRound",
      keys: [key("FundingRound", P, id)],
      name: `${raise.name} ${round ?? "funding round"}`,
      attributes: attributes([
        ["roundStage", round],
        // DefiLlama gives amounts in millions of USD.
        ["amountUsd", raise.amount === null || raise.amount === undefined ? undefined : Math.round(raise.amount * 1e6)],
        ["announcedOn", day],
        ["schema:url", usable(raise.source)],
      ]),
      relations: relations.list,
    });
  }
}

/** A round's identity: whom it is of (DefiLlama's id, else its name), its day and its stage. */
function roundKey(raise: Raise, day: string): string {
  const of = raise.defillamaId === null || raise.defillamaId === undefined ? raise.name : String(raise.defillamaId);
  return `${of}-${day}-${usable(raise.round) ?? "round"}`;
}

const names = (list: string[] | null | undefined): string[] => [...new Set((list ?? []).map((n) => n.trim()).filter(Boolean))];
