/**
 * @module config/providers/chains
 * The chain list (ethereum-lists/chains as chainid.network serves it): its id and settings.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

export const chainsProvider = defineProvider({
  id: "chains",
  title: "the chain list",
  settings: {
    chainlist_url: setting("string", z.url(), "https://chainid.network", "chain list base URL (serves /chains.json, ethereum-lists/chains)"),
  },
});
