/**
 * @module ingest/providers/defillama/known-protocols
 * DefiLlama's protocols as the other connectors know them: the Snapshot spaces and GitHub
 * organizations each names, and its token's CoinGecko id, read from the saved `/protocols` answer
 * as DefiLlama's own parser reads it (same envelope, same schema).
 */
import { parseEach } from "../../connector.ts";
import type { RawStore } from "../../raw-store.ts";
import { listOf, loadSaved } from "./parse-common.ts";
import { parentSchema, type Protocol, protocolSchema } from "./schemas.ts";

export interface KnownProtocol {
  slug: string;
  name: string;
  tvl: number;
  /** Snapshot space ids named in `governanceID` ("snapshot:uniswap.eth" -> "uniswap.eth"). */
  spaces: string[];
  /** GitHub organizations or users named in `github`. */
  orgs: string[];
  /** CoinGecko id of the protocol's token (its family's when it has none of its own: DefiLlama names it on the parent). */
  geckoId?: string;
}

/**
 * The protocols of the saved DefiLlama list, largest TVL first; `problem` says why there are none.
 * A malformed entry is left out silently: DefiLlama's parser reports it.
 */
export function knownProtocols(raw: RawStore): { protocols: KnownProtocol[]; problem?: string } {
  let problem: string | undefined;
  const why = {
    reject: (_what: string, reason: string) => {
      problem ??= reason;
    },
  };
  const saved = loadSaved(raw, why, "protocols");
  const list = saved && listOf(why, "protocols", saved.body);
  if (!list) {
    return { protocols: [], problem: problem ? `the saved DefiLlama protocols answer is unusable (${problem})` : "no DefiLlama protocols list is saved in this run (run the defillama provider first)" };
  }
  // A child's token is its family's: DefiLlama gives the gecko_id on the parent record (lite/protocols2).
  const parents = loadSaved(raw, why, "parents");
  const parentList = parents ? (listOf({ reject: () => undefined }, "parents", parents.body, "parentProtocols") ?? []) : [];
  const familyGecko = new Map([...parseEach(parentList, parentSchema)].flatMap((p) => (p.gecko_id ? [[p.id, p.gecko_id] as const] : [])));
  const protocols = [...parseEach(list, protocolSchema)].map((p) => known(p, p.parentProtocol ? familyGecko.get(p.parentProtocol) : undefined));
  protocols.sort((a, b) => b.tvl - a.tvl);
  return { protocols };
}

function known(p: Protocol, familyGecko: string | undefined): KnownProtocol {
  const spaces = (p.governanceID ?? []).flatMap((g) => {
    const m = /^snapshot:(.+)$/i.exec(g.trim());
    return m ? [m[1]!.trim()] : [];
  });
  const orgs = (p.github ?? []).map((o) => o.trim()).filter((o) => /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,99})$/.test(o));
  return { slug: p.slug, name: p.name, tvl: p.tvl ?? 0, spaces: [...new Set(spaces)], orgs: [...new Set(orgs)], geckoId: p.gecko_id ?? familyGecko };
}
