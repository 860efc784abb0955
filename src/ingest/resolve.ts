/**
 * @module ingest/resolve
 * Entity resolution: provider claims become facts of one entity per real thing.
 *
 * Claims that share a key are one thing (union-find). Chains resolve first, so a token address
 * named by any chain key (`Chain:coingecko:ethereum`, `Chain:defillama:Ethereum`) becomes one
 * canonical address. A cluster then takes the id of the entity its keys already name (the identity
 * map of earlier ingests, chain ids, contract addresses); names are the last resort, within a type,
 * and only when they point at one entity. Every claim's facts go in under its provider's source,
 * so values the providers disagree on are all kept (in their own named graphs) and listed as
 * conflicts; nothing is overwritten. Facts of the generated demo about a real thing are dropped: the
 * real data replaces them.
 */
import { SAME_AS, type SourceInfo, type World } from "../dataset/world.ts";
import { type Attribute, type ClassName, type NodeType, fieldName } from "../entities/vocabulary.ts";
import type { Logger } from "../log.ts";
import { normalizeName } from "../entities/name-index.ts";
import type { BaseWorld } from "./base-world.ts";
import { type EntityClaim, type ProviderOutput, type SeriesRow, SERIES_KEY_COLUMNS, normalizeAddress, parseAddressKey } from "./records.ts";

/** Attributes a thing has one value of: different values from different sources are a conflict. */
const SINGLE_VALUED = new Set<string>(["symbol", "decimals", "chainId", "chainKey", "layer", "pegCurrency", "foundedYear", "license", "programmingLanguage"]);

export interface Conflict {
  entity_id: string;
  field: string;
  values: { value: string; source: string }[];
}

export interface ResolveStats {
  claims: number;
  entities_created: number;
  entities_matched: number;
  matched_by_name: number;
  /** Stablecoins matched by their ticker: the one real stablecoin that has it. */
  matched_by_symbol: number;
  /** Chains' own coins matched by ticker and name or chain name. */
  matched_native_coins: number;
  synthetic_replaced: number;
  relations_unresolved: number;
  rows_unresolved: number;
  /** Chains a provider named by a display name its chain list no longer uses, found by name or alias. */
  chains_by_former_name: number;
}

export interface Resolution {
  /** The entity id a key names, after resolution. */
  idOf(key: string): string | undefined;
  /** Entities that got facts from a provider in this run. */
  touched: Set<string>;
  identity: Map<string, string>;
  conflicts: Conflict[];
  stats: ResolveStats;
  /** Series rows with keys replaced by entity ids (rows whose entity did not resolve are dropped). */
  resolveRows(rows: SeriesRow[]): SeriesRow[];
}

export interface ProviderBatch {
  output: ProviderOutput;
  source: SourceInfo;
  /** When the provider was read: the as-of of every fact it adds. */
  asOf: string;
}

class UnionFind {
  private parent: number[] = [];
  add(): number {
    this.parent.push(this.parent.length);
    return this.parent.length - 1;
  }
  find(x: number): number {
    while (this.parent[x] !== x) x = this.parent[x] = this.parent[this.parent[x]!]!;
    return x;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

interface Tagged {
  claim: EntityClaim;
  source: string;
  keys: string[];
}

/** Keys of chains a provider names by display name (DefiLlama). */
const DISPLAY_NAME_CHAIN = "Chain:defillama:";
const canonicalAddress = (chainId: string, address: string) => `Token:addr|${chainId}|${normalizeAddress(address)}`;
const nameKey = (type: NodeType, name: string) => `${type}|${normalizeName(name)}`;
/** The namespace of a key (`Protocol:defillama`), to tell whether two clusters could be two records of one provider. */
const namespaceOf = (k: string) => (k.startsWith("Token:addr|") ? "Token:addr" : k.split(":").slice(0, 2).join(":"));

export function resolve(base: BaseWorld, batches: ProviderBatch[], log: Logger): Resolution {
  const { world } = base;
  const stats: ResolveStats = { claims: 0, entities_created: 0, entities_matched: 0, matched_by_name: 0, matched_by_symbol: 0, matched_native_coins: 0, synthetic_replaced: 0, relations_unresolved: 0, rows_unresolved: 0, chains_by_former_name: 0 };
  const keyToId = new Map(base.identity);
  const byName = new Map<string, string[]>();
  for (const e of world.entities.values()) {
    for (const name of [e.name, ...e.aliases]) {
      const k = nameKey(e.type, name);
      const list = byName.get(k);
      if (!list) byName.set(k, [e.id]);
      else if (!list.includes(e.id)) list.push(e.id);
    }
  }
  // Real stablecoins by ticker (the demo's never take a real ticker).
  const stablecoinsBySymbol = new Map<string, string[]>();
  for (const e of world.entities.values()) {
    if (!e.symbol || !e.labels.includes("Stablecoin") || world.sources.get(e.source)?.synthetic) continue;
    const list = stablecoinsBySymbol.get(e.symbol.toLowerCase());
    if (list) list.push(e.id);
    else stablecoinsBySymbol.set(e.symbol.toLowerCase(), [e.id]);
  }
  // Native coins by ticker, with the names of the chains they are native to; EVM chains; and the
  // faces of one network (sameNetworkAs).
  const nativeCoinsBySymbol = new Map<string, string[]>();
  const chainNamesOfCoin = new Map<string, Set<string>>();
  const evmChains = new Set<string>();
  const faces = new Set<string>();
  for (let i = 0; i < world.facts.subject.length; i++) {
    const p = world.facts.predicate[i];
    const s = world.facts.subject[i]!;
    const o = world.facts.object[i]!;
    if (p === "chainKey" && o.startsWith("eip155:")) evmChains.add(s);
    else if (p === "sameNetworkAs") faces.add(`${s} ${o}`);
    else if (p === "nativeToken") {
      const coin = world.entities.get(o);
      const chain = world.entities.get(s);
      if (!coin?.symbol || !chain || world.sources.get(coin.source)?.synthetic) continue;
      const list = nativeCoinsBySymbol.get(coin.symbol.toLowerCase()) ?? [];
      if (!list.includes(o)) nativeCoinsBySymbol.set(coin.symbol.toLowerCase(), [...list, o]);
      const names = chainNamesOfCoin.get(o) ?? new Set<string>();
      for (const n of [chain.name, ...chain.aliases]) names.add(normalizeName(n));
      chainNamesOfCoin.set(o, names);
    }
  }
  // Chain keys and contract addresses already in the world.
  const { subject, predicate, object } = world.facts;
  const chainByKey = new Map<string, string>();
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] === "chainKey") chainByKey.set(object[i]!, subject[i]!);
  }
  for (const [chainKey, id] of chainByKey) keyToId.set(`Chain:caip2:${chainKey}`, id);
  for (let i = 0; i < subject.length; i++) {
    if (predicate[i] !== "contractAddress") continue;
    const value = object[i]!;
    const cut = value.lastIndexOf(":");
    const chainId = chainByKey.get(value.slice(0, cut));
    if (chainId && world.entities.get(subject[i]!)?.type === "Token") keyToId.set(canonicalAddress(chainId, value.slice(cut + 1)), subject[i]!);
  }

  const tagged: Tagged[] = batches.flatMap((b) => b.output.claims.map((claim) => ({ claim, source: b.source.id, keys: claim.keys })));
  const asOfBySource = new Map(batches.map((b) => [b.source.id, b.asOf]));
  const previousAsOf = world.factAsOf;
  stats.claims = tagged.length;
  const taken = new Set<string>();
  const clusters: { members: Tagged[]; id: string; isNew: boolean }[] = [];

  /**
   * A chain a provider names by display name (DefiLlama's `Chain:defillama:<name>`) that this run's
   * chain list does not key: the one chain of the world with that name or alias. DefiLlama renames
   * chains (Optimism -> OP Mainnet, xDai -> Gnosis, Binance -> BSC) and older answers keep the old
   * names; the reference data and data/aliases.tsv carry them as aliases.
   */
  const chainByDisplayName = (k: string): string | undefined => {
    if (!k.startsWith(DISPLAY_NAME_CHAIN)) return undefined;
    const candidates = byName.get(nameKey("Chain", k.slice(DISPLAY_NAME_CHAIN.length))) ?? [];
    if (candidates.length !== 1) return undefined;
    keyToId.set(k, candidates[0]!);
    stats.chains_by_former_name++;
    return candidates[0];
  };
  const chainIdOf = (k: string) => keyToId.get(k) ?? chainByDisplayName(k);

  const canon = (k: string): string | undefined => {
    const address = parseAddressKey(k);
    if (!address) return k;
    const chainId = chainIdOf(address.chainKey);
    return chainId ? canonicalAddress(chainId, address.address) : undefined;
  };

  const cluster = (items: Tagged[]) => {
    const uf = new UnionFind();
    const byKey = new Map<string, number>();
    for (const item of items) {
      const node = uf.add();
      for (const k of item.keys) {
        const seen = byKey.get(k);
        if (seen === undefined) byKey.set(k, node);
        else uf.union(seen, node);
      }
    }
    const groups = new Map<number, Tagged[]>();
    items.forEach((item, i) => {
      const root = uf.find(i);
      const list = groups.get(root);
      if (list) list.push(item);
      else groups.set(root, [item]);
    });
    const found: Tagged[][] = [...groups.values()];
    // Names last: clusters of one type and name whose keys come from different namespaces are one thing.
    const unmatched = new Map<string, { members: Tagged[]; spaces: Set<string> }[]>();
    const result: Tagged[][] = [];
    for (const members of found) {
      if (members.some((m) => m.keys.some((k) => keyToId.has(k)))) {
        result.push(members);
        continue;
      }
      const k = nameKey(members[0]!.claim.type, members[0]!.claim.name);
      const spaces = new Set(members.flatMap((m) => m.keys.map(namespaceOf)));
      const group = unmatched.get(k) ?? [];
      const into = group.find((g) => ![...spaces].some((s) => g.spaces.has(s)));
      if (into) {
        into.members.push(...members);
        for (const s of spaces) into.spaces.add(s);
      } else {
        group.push({ members, spaces });
        unmatched.set(k, group);
      }
    }
    for (const group of unmatched.values()) for (const g of group) result.push(g.members);
    return result;
  };

  const assign = (members: Tagged[]) => {
    const type = members[0]!.claim.type;
    let id: string | undefined;
    for (const m of members) for (const k of m.keys) id ??= keyToId.get(k);
    if (!id) {
      for (const m of members) {
        const candidates = (byName.get(nameKey(type, m.claim.name)) ?? []).filter((c) => !taken.has(c));
        const symbolOk = (c: string) => !m.claim.symbol || !world.entities.get(c)!.symbol || world.entities.get(c)!.symbol!.toLowerCase() === m.claim.symbol.toLowerCase();
        let fitting = candidates.filter(symbolOk);
        // Two faces of one network share its name (TRON, and Tron its EVM face): a record with no
        // EVM chain id is the non-EVM face.
        if (fitting.length > 1 && type === "Chain" && !m.keys.some((k) => k.startsWith("Chain:caip2:eip155:"))) {
          const nonEvm = fitting.filter((c) => !evmChains.has(c));
          if (nonEvm.length === 1 && fitting.every((c) => c === nonEvm[0] || faces.has(`${c} ${nonEvm[0]}`))) fitting = nonEvm;
        }
        if (fitting.length === 1) {
          id = fitting[0];
          stats.matched_by_name++;
          break;
        }
      }
    }
    // A chain's own coin named otherwise by another list (CoinGecko's "NEAR Protocol", "Stellar",
    // "Hedera" for NEAR, Stellar Lumens, HBAR): a record with no contract whose ticker is one real
    // native coin's, and whose name starts with that coin's first word or is the name of its chain.
    if (!id && type === "Token") {
      for (const m of members) {
        if (!m.claim.symbol || m.keys.some((k) => parseAddressKey(k) !== undefined)) continue;
        const name = normalizeName(m.claim.name);
        const firstWord = (text: string) => text.toLowerCase().split(/[^a-z0-9]+/).find((w) => w !== "") ?? "";
        const candidates = (nativeCoinsBySymbol.get(m.claim.symbol.toLowerCase()) ?? []).filter(
          (c) => !taken.has(c) && (firstWord(world.entities.get(c)!.name) === firstWord(m.claim.name) || (chainNamesOfCoin.get(c)?.has(name) ?? false)),
        );
        if (candidates.length === 1) {
          id = candidates[0];
          stats.matched_native_coins++;
          break;
        }
      }
    }
    // A stablecoin named otherwise by another list ("Dola" at DefiLlama, "Dola USD Stablecoin" in
    // the token lists) is the one real stablecoin of its ticker, when there is exactly one.
    if (!id) {
      for (const m of members) {
        if (!m.claim.labels?.includes("Stablecoin") || !m.claim.symbol) continue;
        const candidates = (stablecoinsBySymbol.get(m.claim.symbol.toLowerCase()) ?? []).filter((c) => !taken.has(c));
        if (candidates.length === 1) {
          id = candidates[0];
          stats.matched_by_symbol++;
          break;
        }
      }
    }
    const isNew = !id || !world.entities.has(id);
    if (!id || !world.entities.has(id)) id = id ?? world.allocateId(type, primary(members).claim.name);
    taken.add(id);
    for (const m of members) for (const k of m.keys) keyToId.set(k, id);
    clusters.push({ members, id, isNew });
    if (isNew) stats.entities_created++;
    else stats.entities_matched++;
  };

  // 1. Chains, so addresses can be made canonical.
  for (const members of cluster(tagged.filter((t) => t.claim.type === "Chain"))) assign(members);
  // 2. Everything else, on canonical keys.
  const rest = tagged
    .filter((t) => t.claim.type !== "Chain")
    .map((t) => ({ ...t, keys: t.keys.map(canon).filter((k): k is string => k !== undefined) }))
    .filter((t) => t.keys.length > 0);
  for (const members of cluster(rest)) assign(members);

  // 3. Facts. A claimed entity's earlier facts from the same provider (a previous run) and the
  // demo's facts about it give way to this run's.
  const firstNew = world.factCount;
  const replaced = new Set<string>();
  const touched = new Set<string>();
  const isSynthetic = (source: string) => world.sources.get(source)?.synthetic === true;
  const idOf = (k: string) => {
    const c = canon(k);
    return c === undefined ? undefined : keyToId.get(c) ?? chainByDisplayName(c);
  };
  for (const { members, id, isNew } of clusters) {
    const lead = primary(members);
    const existing = world.entities.get(id);
    const labels = [...new Set<ClassName>([lead.claim.type, ...members.flatMap((m) => m.claim.labels ?? [])])];
    world.factAsOf = asOfBySource.get(lead.source)!;
    if (isNew || !existing) {
      world.addEntity({
        id,
        type: lead.claim.type,
        labels,
        name: lead.claim.name.trim(),
        symbol: lead.claim.symbol,
        aliases: [...new Set(members.flatMap((m) => m.claim.aliases ?? []))],
        source: lead.source,
        prominence: Math.max(0, ...members.map((m) => m.claim.prominence ?? 0)),
      });
    } else {
      if (isSynthetic(existing.source)) {
        // The demo's entity is a real thing after all: its record and facts become the provider's.
        stats.synthetic_replaced++;
        existing.name = lead.claim.name.trim();
        existing.symbol = lead.claim.symbol ?? existing.symbol;
        existing.source = lead.source;
        existing.labels = labels;
        existing.aliases = [];
      } else {
        existing.labels = [...new Set([...existing.labels, ...labels])];
      }
      existing.prominence = Math.max(existing.prominence, ...members.map((m) => m.claim.prominence ?? 0));
    }
    const entity = world.entities.get(id)!;
    touched.add(id);
    for (const m of members) {
      world.factAsOf = asOfBySource.get(m.source)!;
      replaced.add(`${id}\u0000${m.source}`);
      const claim = m.claim;
      for (const label of new Set<ClassName>([claim.type, ...(claim.labels ?? [])])) world.restoreFact(id, "rdf:type", label, true, m.source);
      world.attr(id, "schema:name", claim.name.trim(), m.source);
      if (claim.symbol) world.attr(id, "symbol", claim.symbol, m.source);
      for (const alias of claim.aliases ?? []) world.attr(id, "alias", alias, m.source);
      if (normalizeName(claim.name) !== normalizeName(entity.name) && !entity.aliases.includes(claim.name.trim())) entity.aliases.push(claim.name.trim());
      for (const [attribute, value] of claim.attributes ?? []) {
        try {
          world.attr(id, attribute, value, m.source);
        } catch (error) {
          log.debug({ entity: id, attribute, err: (error as Error).message }, "attribute skipped");
        }
      }
      for (const [relation, target] of claim.relations ?? []) {
        const targetId = idOf(target);
        if (targetId && targetId !== id) world.rel(id, relation, targetId, m.source);
        else if (!targetId) stats.relations_unresolved++;
      }
      for (const iri of claim.sameAs ?? []) world.sameAs(id, iri, m.source);
    }
  }
  for (const batch of batches) {
    world.factAsOf = batch.asOf;
    for (const link of batch.output.links) {
      const s = idOf(link.subject);
      const o = idOf(link.object);
      if (!s || !o) {
        stats.relations_unresolved++;
        continue;
      }
      world.rel(s, link.relation, o, batch.source.id);
      touched.add(s);
    }
  }
  world.factAsOf = previousAsOf;
  const { source } = world.facts;
  world.retainFacts((i) => {
    if (i >= firstNew) return true;
    const s = subject[i]!;
    if (!touched.has(s)) return true;
    if (replaced.has(`${s}\u0000${source[i]}`)) return false;
    return !isSynthetic(source[i]!);
  });
  dedupeFacts(world, touched);

  return {
    idOf,
    touched,
    identity: keyToId,
    conflicts: findConflicts(world, touched),
    stats,
    resolveRows(rows) {
      const out: SeriesRow[] = [];
      for (const row of rows) {
        const copy: SeriesRow = { ...row };
        let ok = true;
        for (const column of SERIES_KEY_COLUMNS) {
          const value = row[column];
          if (typeof value !== "string") continue;
          const id = idOf(value) ?? (world.entities.has(value) ? value : undefined);
          if (column === "entity_id" && !id) ok = false;
          copy[column] = id ?? null;
        }
        if (ok) out.push(copy);
        else stats.rows_unresolved++;
      }
      return out;
    },
  };
}

/** The claim that names a new entity: the most prominent; among equals, the first provider in run order. */
function primary(members: Tagged[]): Tagged {
  return members.reduce((best, m) => ((m.claim.prominence ?? 0) > (best.claim.prominence ?? 0) ? m : best), members[0]!);
}

/** The same fact from the same source twice (two records of one provider about one thing) is kept once. */
function dedupeFacts(world: World, touched: Set<string>): void {
  const { subject, predicate, object, source } = world.facts;
  const seen = new Set<string>();
  world.retainFacts((i) => {
    if (!touched.has(subject[i]!)) return true;
    const k = `${subject[i]}\u0000${predicate[i]}\u0000${object[i]}\u0000${source[i]}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function findConflicts(world: World, touched: Set<string>): Conflict[] {
  const values = new Map<string, Map<string, Set<string>>>();
  const { subject, predicate, object, source } = world.facts;
  for (let i = 0; i < subject.length; i++) {
    const p = predicate[i]!;
    if (!SINGLE_VALUED.has(p) || !touched.has(subject[i]!)) continue;
    const k = `${subject[i]}\u0000${p}`;
    let byValue = values.get(k);
    if (!byValue) values.set(k, (byValue = new Map()));
    const v = p === "symbol" ? object[i]!.toUpperCase() : object[i]!;
    let sources = byValue.get(v);
    if (!sources) byValue.set(v, (sources = new Set()));
    sources.add(source[i]!);
  }
  const conflicts: Conflict[] = [];
  for (const [k, byValue] of values) {
    if (byValue.size < 2) continue;
    const [entity, p] = k.split("\u0000") as [string, Attribute | typeof SAME_AS];
    conflicts.push({
      entity_id: entity,
      field: fieldName(p),
      values: [...byValue].flatMap(([value, sources]) => [...sources].map((s) => ({ value, source: s }))),
    });
  }
  return conflicts;
}
