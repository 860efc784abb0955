/**
 * @module ingest/providers/defillama/parse-hacks
 * Security incidents from `/hacks` (free): each incident is a SecurityIncident node of its own, a
 * dated event with the amount lost and returned, technique, classification, target type, bridge
 * flag, language and chains, linked to the protocol it hit (`incidentOf`) as DefiLlama's other
 * records are: `defillamaId` is a protocol id and `parentProtocolId` its family's, resolved through
 * the same run's protocol list (`known.slugById`). An incident on a version of a family is linked to
 * both (Euler V1 and Euler): a user asks about either.
 *
 * An incident whose protocol cannot be resolved is still kept, named, dated and on its chains, and
 * counted as kept without its link: 218 of the 538 in a recorded answer name no protocol at all (FTX, Ronin
 * Bridge, wallets, chains), and leaving them out would hide most of the largest thefts from anyone
 * asking what happened on a chain or in a year. The count says how many have no protocol.
 *
 * Identity: DefiLlama gives incidents no id, so an incident is whom it hit (its protocol id, else its
 * name) and its day. Two incidents of one protocol on one day (DefiLlama lists two for Mirror on
 * 2021-10-08) are told apart by their technique, in the key and the name alike; an amount is not
 * part of it, since DefiLlama revises amounts.
 */
import { slugify } from "../../../entities/vocabulary.ts";
import { dayOf, parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { type ProviderOutput, key } from "../../records.ts";
import { chainKey, P, protocolKey } from "./keys.ts";
import { attributes, CHAIN_PREFIX_ALIASES, type Known, label, listOf, loadSaved, prominenceByRank, Relations, usable } from "./parse-common.ts";
import { type Hack, hackSchema } from "./schemas.ts";

/** Why an incident has no `incidentOf` link (leaveOut reasons, counted in the ingest report). */
export const NO_PROTOCOL = "security incident kept without a protocol: DefiLlama names none (an exchange, wallet, chain or unlisted project)";
export const UNKNOWN_PROTOCOL = "security incident kept without a protocol: its protocol id is not in this run's protocol list";

interface Incident {
  hack: Hack;
  day: string;
}

export function parseHacks(raw: RawStore, out: ProviderOutput, known: Known): void {
  const saved = loadSaved(raw, out, "hacks");
  const list = saved && listOf(out, "hacks", saved.body);
  if (!list) return;
  const incidents: Incident[] = [];
  for (const hack of parseEach(list, hackSchema, (item, issue) => out.reject(`hack ${label(item, "name")}`, issue))) {
    const day = dayOf(hack.date);
    if (day) incidents.push({ hack, day });
    else out.reject(`hack ${JSON.stringify(hack.name)}`, "date: not a time");
  }
  const whom = ({ hack }: Incident) => (hack.defillamaId === null || hack.defillamaId === undefined ? slugify(hack.name) : String(hack.defillamaId));
  const perDay = new Map<string, number>();
  for (const incident of incidents) perDay.set(`${whom(incident)}-${incident.day}`, (perDay.get(`${whom(incident)}-${incident.day}`) ?? 0) + 1);

  // The largest first where explore lists a protocol's incidents.
  const prominence = prominenceByRank(incidents, (i) => i.hack.amount);
  const seen = new Set<string>();
  for (const incident of incidents) {
    const { hack, day } = incident;
    const technique = usable(hack.technique);
    const shared = perDay.get(`${whom(incident)}-${day}`)! > 1;
    const id = `${whom(incident)}-${day}${shared ? `-${slugify(technique ?? "incident")}` : ""}`;
    const name = `${hack.name.trim()} hack, ${day}${shared && technique ? ` (${technique})` : ""}`;
    if (seen.has(id)) {
      out.leaveOut(`hack ${JSON.stringify(name)}`, "security incident listed twice (same protocol, day and technique): kept once");
      continue;
    }
    seen.add(id);

    const relations = new Relations();
    const slug = hack.defillamaId === null || hack.defillamaId === undefined ? undefined : known.slugById.get(String(hack.defillamaId));
    const family = usable(hack.parentProtocolId) ? known.slugById.get(hack.parentProtocolId!) : slug && known.familyOf.get(slug);
    relations.add("incidentOf", slug && protocolKey(slug));
    relations.add("incidentOf", family && protocolKey(family));
    if (!slug && !family) {
      const namesOne = (hack.defillamaId !== null && hack.defillamaId !== undefined) || usable(hack.parentProtocolId) !== undefined;
      out.leaveOut(`hack ${JSON.stringify(name)}`, namesOne ? UNKNOWN_PROTOCOL : NO_PROTOCOL);
    }
    for (const chain of hack.chain ?? []) relations.add("incidentChain", incidentChainKey(chain, known));

    out.entity({
      type: "SecurityIncident",
      keys: [key("SecurityIncident", P, id)],
      name,
      attributes: attributes([
        ["occurredOn", day],
        ["amountUsd", hack.amount],
        ["returnedFundsUsd", hack.returnedFunds],
        ["technique", technique],
        ["classification", usable(hack.classification)],
        ["targetType", usable(hack.targetType)],
        ["bridgeHack", hack.bridgeHack],
        ["programmingLanguage", usable(hack.language)],
        ["schema:url", usable(hack.source)],
      ]),
      relations: relations.list,
      prominence: prominence.get(incident),
    });
  }
}

/**
 * A chain as `/hacks` names it: DefiLlama's display names, some of them former ones ("Optimism" for
 * OP Mainnet), which the chain list's ids and the aliases DefiLlama's addresses use turn into the
 * current name; any other name is left to resolution, which also knows former names.
 */
function incidentChainKey(name: string, known: Known): string | undefined {
  const text = usable(name);
  if (!text) return undefined;
  const id = text.toLowerCase().replace(/\s+/g, "_");
  return chainKey(known.chainByPrefix.get(id) ?? CHAIN_PREFIX_ALIASES[id] ?? text);
}
