/**
 * @module ingest/providers/chains
 * Chains from the chain list the reference data already draws on (ethereum-lists/chains, as served
 * at chainid.network/chains.json, CC0): mainnets only, with chain id, native currency, parent (L2s)
 * and homepage. One answer: the whole list, refreshed each run. What is a test network is the
 * reference data's rule (model/test-network); faucets say nothing (Gnosis lists one). A chain
 * flagged `reusedChainId` uses an id another chain had first: it does not claim that id's key
 * (which names the chain already known by it) and joins by its name instead.
 */
import { z } from "zod";
import { chainsProvider } from "../../config/providers/chains.ts";
import { ask, defineConnector, parseEach } from "../connector.ts";
import { isTestNetwork } from "../../model/test-network.ts";
import { key } from "../records.ts";

const chainSchema = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  chainId: z.number().int().nonnegative(),
  shortName: z.string().optional(),
  nativeCurrency: z.object({ name: z.string(), symbol: z.string() }).partial().optional(),
  infoURL: z.string().optional(),
  status: z.string().optional(),
  redFlags: z.array(z.string()).optional(),
  parent: z.object({ type: z.string().optional(), chain: z.string() }).optional(),
});

export const caip2Key = (chainId: number | string) => key("Chain", "caip2", `eip155:${chainId}`);

const P = chainsProvider.id;

export const chains = defineConnector(chainsProvider, {
  source: {
    name: "ethereum-lists/chains (chainid.network)",
    license: "CC0-1.0",
    attribution: "Chain metadata from ethereum-lists/chains (https://github.com/ethereum-lists/chains), CC0.",
    homepage: "https://chainid.network",
  },
  configure: (settings) => ({ settings: { urls: { chainlist: settings.chainlist_url } }, minIntervalMs: 0 }),

  async fetch(ctx) {
    await ask(ctx, P, "chains", () => ctx.http.getJson(`${ctx.settings.urls.chainlist}/chains.json`));
    ctx.progress(1, 1);
  },

  parse(raw, out) {
    const list = raw.load(P, "chains");
    if (list === undefined) return;
    if (!Array.isArray(list)) return out.reject("chains.json", "not a list");
    for (const chain of parseEach(list, chainSchema, (item, issue) => out.reject(`chain ${JSON.stringify((item as { name?: unknown })?.name ?? null)}`, issue))) {
      const what = `chain ${chain.name} (${chain.chainId})`;
      if (chain.status === "deprecated") {
        out.leaveOut(what, "deprecated chain");
        continue;
      }
      if (isTestNetwork({ name: chain.name, title: chain.title, shortName: chain.shortName, chainId: chain.chainId })) {
        out.leaveOut(what, "test, development or canary network");
        continue;
      }
      const reusedId = chain.redFlags?.includes("reusedChainId") ?? false;
      if (reusedId) out.leaveOut(what, "reuses another chain's id: joined by name, not by chain id");
      const parent = /^eip155-(\d+)$/.exec(chain.parent?.chain ?? "");
      out.entity({
        type: "Chain",
        keys: [reusedId ? key("Chain", "chainlist-name", chain.name.toLowerCase()) : caip2Key(chain.chainId)],
        name: chain.name,
        symbol: chain.nativeCurrency?.symbol,
        aliases: chain.shortName && chain.shortName.toLowerCase() !== chain.name.toLowerCase() ? [chain.shortName] : [],
        attributes: [
          ...(reusedId ? [] : [["chainKey", `eip155:${chain.chainId}`] as ["chainKey", string]]),
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
});
