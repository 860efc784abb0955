/**
 * @module ingest/providers/chains
 * Chains from the chain list the reference data already draws on (ethereum-lists/chains, as served
 * at chainid.network/chains.json, CC0): mainnets only, with chain id, native currency, parent (L2s)
 * and homepage. One answer: the whole list, refreshed each run.
 */
import { z } from "zod";
import type { Connector } from "../connector.ts";
import { fetchOnce } from "../connector.ts";
import { key } from "../records.ts";

const chainSchema = z.object({
  name: z.string().min(1),
  chainId: z.number().int().nonnegative(),
  shortName: z.string().optional(),
  nativeCurrency: z.object({ name: z.string(), symbol: z.string() }).partial().optional(),
  infoURL: z.string().optional(),
  faucets: z.array(z.unknown()).optional(),
  status: z.string().optional(),
  parent: z.object({ type: z.string().optional(), chain: z.string() }).optional(),
});

const TESTNET = /test|sepolia|goerli|holesky|devnet|ropsten|rinkeby|kovan|chiado|fuji|mumbai|amoy/i;

export const caip2Key = (chainId: number | string) => key("Chain", "caip2", `eip155:${chainId}`);

export const chains: Connector = {
  id: "chains",
  source: {
    id: "chains",
    name: "ethereum-lists/chains (chainid.network)",
    kind: "provider",
    synthetic: false,
    license: "CC0-1.0",
    attribution: "Chain metadata from ethereum-lists/chains (https://github.com/ethereum-lists/chains), CC0.",
    homepage: "https://chainid.network",
  },

  async fetch(ctx) {
    await fetchOnce(ctx, "chains", "chains", () => ctx.http.getJson(`${ctx.settings.urls.chainlist}/chains.json`));
    ctx.progress(1, 1);
  },

  parse(raw, out) {
    const list = raw.load("chains", "chains");
    if (list === undefined) return;
    if (!Array.isArray(list)) return out.reject("chains.json", "not a list");
    for (const item of list) {
      const parsed = chainSchema.safeParse(item);
      if (!parsed.success) {
        out.reject(`chain ${JSON.stringify((item as { name?: unknown })?.name ?? null)}`, parsed.error.issues[0]?.message ?? "invalid");
        continue;
      }
      const chain = parsed.data;
      if (chain.status === "deprecated" || TESTNET.test(chain.name) || (chain.faucets?.length ?? 0) > 0) continue;
      const parent = /^eip155-(\d+)$/.exec(chain.parent?.chain ?? "");
      out.entity({
        type: "Chain",
        keys: [caip2Key(chain.chainId)],
        name: chain.name,
        symbol: chain.nativeCurrency?.symbol,
        aliases: chain.shortName && chain.shortName.toLowerCase() !== chain.name.toLowerCase() ? [chain.shortName] : [],
        attributes: [
          ["chainKey", `eip155:${chain.chainId}`],
          ["chainId", String(chain.chainId)],
          ["chainFamily", "evm"],
          ["layer", parent ? "L2" : "L1"],
          ...(chain.infoURL ? [["schema:url", chain.infoURL] as ["schema:url", string]] : []),
        ],
        relations: parent ? [["parentChain", caip2Key(parent[1]!)]] : [],
        sameAs: [`https://chainlist.org/chain/${chain.chainId}`],
      });
    }
  },
};
