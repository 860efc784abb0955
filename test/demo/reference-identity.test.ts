/**
 * Identity and prominence of the real reference entities (src/demo/reference-identity.ts), on
 * the world the default build makes from data/reference and data/aliases.tsv.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generateWorld } from "../../src/demo/generate.ts";
import { parseAliases } from "../../src/demo/reference.ts";
import { ALIAS_SOURCE, coreChainName, networkFaces } from "../../src/demo/reference-identity.ts";
import { silentLogger } from "../../src/log.ts";

describe("reference identity", async () => {
  const { world } = await generateWorld({ scale: 8000, seed: 7, asOf: new Date("2026-11-20T00:00:00Z") }, silentLogger);
  const { subject, predicate, object, source } = world.facts;
  const facts = (p: string) => subject.flatMap((s, i) => (predicate[i] === p ? [{ s, o: object[i]!, source: source[i]! }] : []));
  const chainByKey = new Map(facts("chainKey").map((f) => [f.o, f.s]));
  const chain = (key: string) => chainByKey.get(key)!;
  const nativeOf = new Map(facts("nativeToken").map((f) => [f.s, f.o]));
  const entity = (id: string) => world.entities.get(id)!;
  const tokenAt = (contract: string) => facts("contractAddress").find((f) => f.o.toLowerCase() === contract.toLowerCase())?.s;

  test("ETH is one token: Ether is the native coin of Ethereum and of every rollup that pays gas in ETH", () => {
    const ether = nativeOf.get(chain("eip155:1"))!;
    expect(entity(ether)).toMatchObject({ name: "Ether", symbol: "ETH" });
    for (const key of ["eip155:42161", "eip155:10", "eip155:8453", "eip155:59144", "eip155:324"]) expect(nativeOf.get(chain(key)), key).toBe(ether);
    // The record that lists Ether by its OP Mainnet address joined it instead of becoming a look-alike.
    expect(tokenAt("eip155:10:0xdeaddeaddeaddeaddeaddeaddeaddeaddead0000")).toBe(ether);
    const lookAlikes = [...world.entities.values()].filter((e) => e.type === "Token" && e.symbol === "ETH" && e.source !== "synthetic-demo" && /^(eth|ether|ethereum)$/i.test(e.name));
    expect(lookAlikes.map((e) => e.id)).toEqual([ether]);
  });

  test("records of one name and symbol holding two contracts on one chain stay two tokens", () => {
    // Fetch's old and new FET are two contracts on Ethereum; weETH has two contracts on Base.
    const fet = tokenAt("eip155:1:0xaea46a60368a7bd060eec7df8cba43b7ef41ad85")!;
    const oldFet = tokenAt("eip155:1:0x1d287cc25dad7ccaf76a26bc660c5f7c8e2a05bd")!;
    expect([fet, oldFet].every(Boolean)).toBe(true);
    expect(oldFet).not.toBe(fet);
    expect(tokenAt("eip155:8453:0x04c0599ae5a44757c0af6f9ec3b93da8976c150a")).not.toBe(tokenAt("eip155:1:0xcd5fe23c85820f7b72d0926fc9b05b43e359b7ee"));
  });

  test("a chain carries its coin's ticker only where the coin is at home", () => {
    expect(entity(chain("eip155:1")).symbol).toBe("ETH");
    expect(entity(chain("eip155:42161")).symbol).toBeUndefined();
    expect(entity(chain("eip155:56")).symbol).toBe("BNB");
    // BTC is at home on Bitcoin: the EVM chains paying gas in bridged BTC take Bitcoin's coin, not the ticker.
    expect(entity(chain("bitcoin:mainnet")).symbol).toBe("BTC");
    for (const key of ["eip155:200901", "eip155:11501", "eip155:223"]) {
      expect(entity(chain(key)).symbol, key).toBeUndefined();
      expect(nativeOf.get(chain(key)), key).toBe(nativeOf.get(chain("bitcoin:mainnet")));
    }
  });

  test("a Cosmos chain and its EVM side, and a chain and its EVM JSON-RPC face, are linked both ways", () => {
    const linked = new Set(facts("sameNetworkAs").map((f) => `${f.s} ${f.o}`));
    for (const [a, b] of <[string, string][]>[
      ["cosmos:pacific-1", "eip155:1329"], // Sei, Sei Network
      ["cosmos:cronosmainnet_25-1", "eip155:25"], // Cronos, Cronos Mainnet
      ["cosmos:injective-1", "eip155:1776"], // Injective twice
      ["tron:mainnet", "eip155:728126428"], // TRON, Tron
      ["cosmos:genesis_29-2", "eip155:29"], // GenesisL1, Genesis L1: spacing aside
    ]) {
      expect(linked.has(`${chain(a)} ${chain(b)}`), `${a} -> ${b}`).toBe(true);
      expect(linked.has(`${chain(b)} ${chain(a)}`), `${b} -> ${a}`).toBe(true);
    }
    // Another project that borrows a name is not a face: Bitcoin EVM is not Bitcoin.
    expect(linked.has(`${chain("bitcoin:mainnet")} ${chain("eip155:2203")}`)).toBe(false);
  });

  test("the face rule: core names drop a trailing generic word; other families need the same name", () => {
    expect(coreChainName("Sei Network")).toBe("sei");
    expect(coreChainName("Cronos Mainnet")).toBe("cronos");
    expect(coreChainName("Chain")).toBe("chain");
    const chain = (key: string, name: string, family: string, native_symbol: string) => ({ key, name, family, native_symbol, aliases: [], sources: ["x"] });
    expect(
      networkFaces([chain("cosmos:a-1", "Alpha", "cosmos", "ALP"), chain("eip155:7", "Alpha EVM", "evm", "ALP"), chain("eip155:8", "Alpha", "evm", "BET")]),
    ).toEqual([["cosmos:a-1", "eip155:7"]]);
    expect(networkFaces([chain("btc:mainnet", "Beta", "btc", "BET"), chain("eip155:9", "Beta EVM", "evm", "BET")])).toEqual([]);
  });

  test("the canonical entity is the most prominent of its look-alikes", () => {
    const tether = tokenAt("eip155:1:0xdac17f958d2ee523a2206206994597c13d831ec7")!;
    const usdts = [...world.entities.values()].filter((e) => e.type === "Token" && e.symbol?.toUpperCase() === "USDT" && e.source !== "synthetic-demo");
    expect(usdts.length).toBeGreaterThan(2);
    for (const other of usdts) if (other.id !== tether) expect(entity(tether).prominence, other.name).toBeGreaterThan(other.prominence);
    expect(entity(chain("eip155:42161")).prominence).toBeGreaterThan(entity(chain("eip155:42170")).prominence);
    const ether = nativeOf.get(chain("eip155:1"))!;
    const bridged = tokenAt("eip155:56:0x2170ed0880ac9a755fd29b2688956bd959f933f8")!; // "Ethereum Token" on BNB Smart Chain
    expect(entity(ether).prominence).toBeGreaterThan(entity(bridged).prominence);
  });

  test("every curated alias lands on its entity, as an alias fact with the curated source unless a package gave it already", () => {
    const lines = parseAliases(readFileSync(join(import.meta.dir, "../../data/aliases.tsv"), "utf8"));
    expect(lines.length).toBeGreaterThan(40);
    const key = (text: string) => text.toLowerCase().replace(/[\s_-]+/g, "");
    const idOf = (kind: string, k: string) => {
      if (kind === "chain") return chainByKey.get(k);
      if (kind === "token") return k.startsWith("native:") ? nativeOf.get(chainByKey.get(k.slice(7))!) : tokenAt(k);
      if (kind === "exchange") return `exchange/${k}`;
      return [...world.entities.values()].find((e) => e.type === "Protocol" && e.name.toLowerCase() === k.toLowerCase())?.id;
    };
    for (const line of lines) {
      const id = idOf(line.kind, line.key);
      expect(id, `line ${line.line}`).toBeDefined();
      const names = [entity(id!).name, ...entity(id!).aliases].map(key);
      expect(names, `line ${line.line}`).toContain(key(line.alias));
    }
    expect(facts("alias").filter((f) => f.source === ALIAS_SOURCE).length).toBeGreaterThan(30);
    expect(world.sources.get(ALIAS_SOURCE)).toMatchObject({ synthetic: false, kind: "reference" });
  });

  test("a malformed alias line is refused with its line number", () => {
    expect(() => parseAliases("# comment\nchain\teip155:1\tonly three")).toThrow("line 2");
    expect(() => parseAliases("planet\tearth\tTerra\tsomewhere")).toThrow("line 1");
  });
});
