/**
 * @module ingest/providers/defillama/parse-raises
 * Funding rounds and their investors.
 */
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key } from "../../records.ts";
import { dayOf, parseEach } from "../../connector.ts";
import { investorKey, P, protocolKey } from "./keys.ts";
import { attributes, type Known, label, listOf, loadSaved, Relations, usable } from "./parse-common.ts";
import { raiseSchema } from "./schemas.ts";

export function parseRaises(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "raises");
  const list = saved && listOf(out, "raises", saved.body, "raises");
  if (!list) return;
  const investors = new Set<string>();
  for (const raise of parseEach(list, raiseSchema, (item, issue) => out.reject(`raise ${label(item, "name")}`, issue))) {
    const day = dayOf(raise.date);
    if (!day) {
      out.reject(`raise ${JSON.stringify(raise.name)}`, "date: not a time");
      continue;
    }
    const round = usable(raise.round);
    // defillamaId holds a protocol id ("2198") or a parent id ("parent#uniswap"), not a slug.
    const id = raise.defillamaId === null || raise.defillamaId === undefined ? undefined : String(raise.defillamaId);
    const slug = id ? known.slugById.get(id) : undefined;
    const relations = new Relations();
    relations.add("raisedBy", slug && protocolKey(slug));
    const lead = new Set((raise.leadInvestors ?? []).map((name) => name.trim()).filter(Boolean));
    for (const name of lead) relations.add("leadInvestor", investorKey(name));
    for (const name of (raise.otherInvestors ?? []).map((n) => n.trim()).filter(Boolean)) if (!lead.has(name)) relations.add("investor", investorKey(name));
    for (const name of [...lead, ...(raise.otherInvestors ?? []).map((n) => n.trim()).filter(Boolean)]) {
      if (investors.has(investorKey(name))) continue;
      investors.add(investorKey(name));
      out.entity({ type: "Organization", labels: ["VentureFund"], keys: [investorKey(name)], name });
    }
    out.entity({
      type: "FundingRound",
      keys: [key("FundingRound", P, `${id ?? raise.name}-${day}-${round ?? "round"}`)],
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

/** DefiLlama's unlock categories as allocation groups. */
