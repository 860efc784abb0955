/**
 * @module entities/name-index
 * Every node of the live snapshot by id, URI and normalised name. Explore, insights and search
 * resolve "Uniswap", "uniswap " or a URI to entities here, without a graph round trip.
 *
 * The snapshot stores each name's normalised key (`name_key`), and the index loads rows sorted by
 * it (DuckDB sorts, off this thread): an exact match and a "names that start like this" range are
 * binary searches, and no per-name work happens at start-up.
 */
import { distance } from "fastest-levenshtein";
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString, streamColumns, withConnection } from "../store/duckdb.ts";
import { ENTITY_TYPES, type NodeType, type Namespaces, SUPPORT_TYPES, entityIdOf } from "./vocabulary.ts";
import { PackedLookup, PackedStrings } from "./packed-strings.ts";
import { WordIndex } from "./word-index.ts";

export interface IndexedNode {
  id: string;
  uri: string;
  type: NodeType;
  labels: string[];
  name: string;
  symbol?: string;
  prominence: number;
}

/** Case-, accent- and space-insensitive form of a name: "Uni Swap" and "uniswap" are one key. */
export function normalizeName(text: string): string {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/\s+/g, "");
}

/** Node types by code: a position's type as one byte (typeCodes), for loops over many positions. */
const NODE_TYPES: readonly NodeType[] = [...ENTITY_TYPES, ...SUPPORT_TYPES];
const CODE_OF = new Map(NODE_TYPES.map((type, code) => [type, code]));

/** See exactAny. */
const NAME_MATCH_BONUS = 0.15;

/** How many names starting like a missed query are ranked by edit distance for suggestions. */
const SUGGESTION_CANDIDATES = 400;

export class NameIndex {
  /** Columns in `keys` order (sorted), packed: strings in arrays would cost 200 MB more on the full data. */
  private readonly keys: PackedStrings;
  private readonly ids: PackedStrings;
  private readonly names: PackedStrings;
  /** "" where a node has none. */
  private readonly symbols: PackedStrings;
  private readonly byId: PackedLookup;
  /** Normalised symbols and aliases, sorted, and the position of each: exact matches other than the name. */
  private readonly otherKeys: PackedStrings;
  private readonly otherPositions: Int32Array;
  /** The words of every name and alias, for lexical search. */
  readonly words: WordIndex;
  /** Per position: the node type's code (NODE_TYPES), and its prominence as a float. */
  readonly typeCodes: Uint8Array;
  readonly prominences: Float32Array;

  /** Columns in `keys` order (sorted). */
  private constructor(
    private readonly ns: Namespaces,
    keys: string[],
    ids: string[],
    names: string[],
    symbols: (string | null)[],
    private readonly types: NodeType[],
    private readonly labelSets: string[][],
    prominence: number[],
    aliases: string[][],
  ) {
    this.keys = PackedStrings.of(keys);
    this.ids = PackedStrings.of(ids);
    this.names = PackedStrings.of(names);
    this.symbols = PackedStrings.of(symbols);
    this.byId = new PackedLookup(this.ids);
    const others: { key: string; at: number }[] = [];
    for (let i = 0; i < ids.length; i++) {
      for (const other of [symbols[i], ...aliases[i]!]) {
        const key = other ? normalizeName(other) : keys[i]!;
        if (key !== keys[i]) others.push({ key, at: i });
      }
    }
    others.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.at - b.at));
    const distinct = others.filter((o, j) => j === 0 || o.key !== others[j - 1]!.key || o.at !== others[j - 1]!.at);
    this.otherKeys = PackedStrings.of(distinct.map((o) => o.key));
    this.otherPositions = Int32Array.from(distinct, (o) => o.at);
    this.typeCodes = Uint8Array.from(types, (type) => CODE_OF.get(type) ?? 255);
    this.prominences = Float32Array.from(prominence);
    // The symbol is a text of its own: "ustd" is a close spelling of USDT, Tether's whole symbol.
    this.words = WordIndex.build(ids.length, (i) => (symbols[i] ? [names[i]!, symbols[i]!, ...aliases[i]!] : [names[i]!, ...aliases[i]!]), this.typeCodes);
  }

  static async fromParquet(duck: DuckDBInstance, file: string, ns: Namespaces): Promise<NameIndex> {
    const c = await withConnection(duck, (connection) =>
      streamColumns(
        connection,
        `SELECT name_key, id, type, array_to_string(labels, ',') AS labels, name, symbol, prominence, aliases
         FROM read_parquet(${sqlString(file)}) ORDER BY name_key, prominence DESC, id`,
      ),
    );
    sortLikeJavaScript(c);
    // Few distinct types and label sets (Token, Token+Stablecoin, ...): one string or array per value, not per node.
    const interned = new Map<string, string[]>();
    const labelSets = (c.labels as string[]).map((text) => {
      let labels = interned.get(text);
      if (!labels) interned.set(text, (labels = text.split(",")));
      return labels;
    });
    const typeNames = new Map<string, NodeType>();
    const types = (c.type as NodeType[]).map((type) => typeNames.get(type) ?? (typeNames.set(type, type), type));
    return new NameIndex(
      ns,
      c.name_key as string[],
      c.id as string[],
      c.name as string[],
      c.symbol as (string | null)[],
      types,
      labelSets,
      (c.prominence as number[]).map(Number),
      (c.aliases as (string[] | null)[]).map((a) => a ?? []),
    );
  }

  /** A table by type code: 1 where the type is accepted (WordIndex.match). */
  typeTable(accept: (type: NodeType) => boolean): Uint8Array {
    const table = new Uint8Array(256);
    for (const [code, type] of NODE_TYPES.entries()) table[code] = accept(type) ? 1 : 0;
    return table;
  }

  /** The code of a type in typeCodes. */
  static codeOf(type: NodeType): number {
    return CODE_OF.get(type)!;
  }

  get size(): number {
    return this.ids.length;
  }

  get(id: string): IndexedNode | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.node(i);
  }

  /**
   * A node's position in this index. Search maps its vector rows to positions once, at load: a
   * lookup by id in a map of every node costs about a microsecond, and a search ranks hundreds.
   */
  positionOf(id: string): number | undefined {
    return this.byId.get(id);
  }

  at(position: number): IndexedNode {
    return this.node(position);
  }

  idAt(position: number): string {
    return this.ids.at(position);
  }

  nameAt(position: number): string {
    return this.names.at(position);
  }

  typeAt(position: number): NodeType {
    return this.types[position]!;
  }

  prominenceAt(position: number): number {
    return this.prominences[position]!;
  }

  byUri(uri: string): IndexedNode | undefined {
    const id = entityIdOf(this.ns, uri);
    return id === undefined ? undefined : this.get(id);
  }

  /**
   * Nodes whose name, symbol or an alias equals the text (normalised), most prominent first; a
   * match on the name counts a little more than one on a symbol or alias (NAME_MATCH_BONUS), so
   * the token named "USDT" on one chain does not pass Tether's USDT.
   */
  exactAny(text: string, accept: (type: NodeType) => boolean): IndexedNode[] {
    const key = normalizeName(text);
    const found = new Map<number, number>();
    for (let i = this.keys.lowerBound(key); i < this.keys.length && this.keys.at(i) === key; i++) {
      if (accept(this.types[i]!)) found.set(i, this.prominences[i]! + NAME_MATCH_BONUS);
    }
    for (let j = this.otherKeys.lowerBound(key); j < this.otherKeys.length && this.otherKeys.at(j) === key; j++) {
      const i = this.otherPositions[j]!;
      if (!found.has(i) && accept(this.types[i]!)) found.set(i, this.prominences[i]!);
    }
    // The most prominent first (a name match above a symbol's); ties by name, then id: a total order, so `limit` cuts the same way every time.
    return [...found].sort((a, b) => b[1] - a[1] || this.names.at(a[0]).localeCompare(this.names.at(b[0])) || (this.ids.at(a[0]) < this.ids.at(b[0]) ? -1 : 1)).map(([i]) => this.node(i));
  }

  /**
   * The closest names to a text that matched nothing: entities whose name or alias holds every word
   * of it (or a prefix or close spelling: the word index), the more prominent first, then whole
   * names spelled close to it. Bounded work, whatever the index size.
   */
  suggest(text: string, options: { type?: NodeType; limit?: number } = {}): IndexedNode[] {
    const limit = options.limit ?? 5;
    const accept = (type: NodeType) => options.type === undefined || type === options.type;
    const words = this.words.match(text, this.typeTable(accept));
    const ranked = Array.from(words.positions, (position, i) => ({ position, rank: words.scores[i]! * (0.9 + 0.1 * this.prominences[position]!) }))
      .sort((a, b) => b.rank - a.rank)
      .slice(0, limit)
      .map((r) => r.position);
    const seen = new Set(ranked);
    for (const { node } of this.closeNames(text, accept, limit)) {
      const position = this.byId.get(node.id)!;
      if (!seen.has(position)) ranked.push(position);
      seen.add(position);
    }
    return ranked.slice(0, limit).map((i) => this.node(i));
  }

  /**
   * Names spelled close to a text, with a similarity of 1 - edit distance / length (below 1: the
   * exact matches are exactAny's), at least `minSimilarity`. Bounded work, as suggest.
   */
  closeNames(text: string, accept: (type: NodeType) => boolean, limit: number, minSimilarity = 0): { node: IndexedNode; similarity: number }[] {
    const key = normalizeName(text);
    if (key.length === 0) return [];
    // The distance is at least the difference in length: a name shorter than `shortest` or longer
    // than `longest` cannot reach minSimilarity (a question of forty letters has few names to spell).
    const shortest = minSimilarity * key.length;
    const longest = minSimilarity > 0 ? key.length / minSimilarity : Number.POSITIVE_INFINITY;
    let start = 0;
    let end = 0;
    for (let length = Math.min(key.length, 6); length >= 1; length--) {
      const prefix = key.slice(0, length);
      start = this.keys.lowerBound(prefix);
      end = this.keys.lowerBound(`${prefix}\uffff`, start);
      if (end - start >= limit) break;
    }
    // Farther than half the text's length is no longer "close": better no suggestion than a random one.
    const tolerance = Math.max(2, Math.ceil(key.length / 2));
    const scored: { i: number; d: number }[] = [];
    for (let i = start; i < end && scored.length < SUGGESTION_CANDIDATES; i++) {
      // A name's UTF-8 bytes are at least its letters: one too short is passed without decoding it.
      if (!accept(this.types[i]!) || this.keys.bytesOf(i) < shortest) continue;
      const name = this.keys.at(i);
      if (name.length < shortest || name.length > longest) continue;
      const d = distance(key, name.slice(0, key.length + 4));
      if (d <= tolerance) scored.push({ i, d });
    }
    scored.sort((a, b) => a.d - b.d || this.prominences[b.i]! - this.prominences[a.i]!);
    const seen = new Set<string>();
    const out: { node: IndexedNode; similarity: number }[] = [];
    for (const { i } of scored) {
      const name = this.keys.at(i);
      if (seen.has(name)) continue;
      seen.add(name);
      const similarity = 1 - distance(key, name) / Math.max(key.length, name.length);
      if (similarity < minSimilarity) continue;
      out.push({ node: this.node(i), similarity: Math.min(0.99, similarity) });
      if (out.length >= limit) break;
    }
    return out;
  }


  private node(i: number): IndexedNode {
    const id = this.ids.at(i);
    return {
      id,
      uri: `${this.ns.entity}${id}`,
      type: this.types[i]!,
      labels: this.labelSets[i]!,
      name: this.names.at(i),
      symbol: this.symbols.at(i) || undefined,
      prominence: this.prominences[i]!,
    };
  }
}

/**
 * DuckDB sorts by UTF-8 bytes, JavaScript compares UTF-16 units; they differ only for characters
 * beyond the Basic Multilingual Plane. Checks the order and re-sorts the columns if a name needs it.
 */
function sortLikeJavaScript(columns: Record<string, unknown[]>): void {
  const keys = columns.name_key as string[];
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i++) sorted = keys[i - 1]! <= keys[i]!;
  if (sorted) return;
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
  for (const name of Object.keys(columns)) {
    const column = columns[name]!;
    columns[name] = order.map((i) => column[i]);
  }
}
