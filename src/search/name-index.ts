/**
 * @module search/name-index
 * Every node of the live snapshot by id, URI and normalised name. Explore, insights and search
 * resolve "Uniswap", "uniswap " or a URI to entities here, without a graph round trip.
 * Columnar arrays keep 600,000 entries to a modest amount of memory.
 */
import { distance } from "fastest-levenshtein";
import type { DuckDBInstance } from "@duckdb/node-api";
import { sqlString, withConnection } from "../store/duckdb.ts";
import { type NodeType, type Namespaces, isEntityType, entityIdOf } from "../graph/vocabulary.ts";

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

export class NameIndex {
  private readonly ids: string[] = [];
  private readonly names: string[] = [];
  private readonly keys: string[] = [];
  private readonly symbols: (string | undefined)[] = [];
  private readonly types: NodeType[] = [];
  private readonly labelSets: string[][] = [];
  private readonly prominence: number[] = [];
  private readonly byKey = new Map<string, number[]>();
  private readonly byId = new Map<string, number>();

  constructor(private readonly ns: Namespaces) {}

  static async fromParquet(duck: DuckDBInstance, file: string, ns: Namespaces): Promise<NameIndex> {
    const index = new NameIndex(ns);
    const columns = await withConnection(duck, async (c) => {
      const reader = await c.runAndReadAll(
        `SELECT id, type, array_to_string(labels, ',') AS labels, name, symbol, prominence FROM read_parquet(${sqlString(file)})`,
      );
      return reader.getColumnsObjectJS() as Record<string, unknown[]>;
    });
    const interned = new Map<string, string[]>();
    const n = columns.id!.length;
    for (let i = 0; i < n; i++) {
      const labelText = columns.labels![i] as string;
      let labels = interned.get(labelText);
      if (!labels) interned.set(labelText, (labels = labelText.split(",")));
      index.add(
        columns.id![i] as string,
        columns.type![i] as NodeType,
        labels,
        columns.name![i] as string,
        (columns.symbol![i] as string | null) ?? undefined,
        Number(columns.prominence![i]),
      );
    }
    return index;
  }

  add(id: string, type: NodeType, labels: string[], name: string, symbol: string | undefined, prominence: number): void {
    const i = this.ids.length;
    this.ids.push(id);
    this.names.push(name);
    const key = normalizeName(name);
    this.keys.push(key);
    this.symbols.push(symbol);
    this.types.push(type);
    this.labelSets.push(labels);
    this.prominence.push(prominence);
    this.byId.set(id, i);
    const list = this.byKey.get(key);
    if (list) list.push(i);
    else this.byKey.set(key, [i]);
  }

  get size(): number {
    return this.ids.length;
  }

  /** Counts of nodes by type. */
  countsByType(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const type of this.types) counts[type] = (counts[type] ?? 0) + 1;
    return counts;
  }

  get(id: string): IndexedNode | undefined {
    const i = this.byId.get(id);
    return i === undefined ? undefined : this.node(i);
  }

  byUri(uri: string): IndexedNode | undefined {
    const id = entityIdOf(this.ns, uri);
    return id === undefined ? undefined : this.get(id);
  }

  /** Nodes whose normalised name equals the text's, most prominent first; optionally of one type. */
  exact(text: string, type?: NodeType): IndexedNode[] {
    const hits = this.byKey.get(normalizeName(text)) ?? [];
    return hits
      .filter((i) => type === undefined || this.types[i] === type)
      .sort((a, b) => this.prominence[b]! - this.prominence[a]!)
      .map((i) => this.node(i));
  }

  /**
   * The closest names to a text that matched nothing: names that share its first letters or
   * contain it, ranked by edit distance, then prominence. A linear scan (tens of ms at full
   * scale), run only on a miss.
   */
  suggest(text: string, options: { type?: NodeType; entityTypesOnly?: boolean; limit?: number } = {}): IndexedNode[] {
    const key = normalizeName(text);
    if (key.length === 0) return [];
    const prefix = key.slice(0, Math.min(3, key.length));
    const scored: { i: number; d: number }[] = [];
    for (let i = 0; i < this.keys.length; i++) {
      if (options.type !== undefined && this.types[i] !== options.type) continue;
      if (options.entityTypesOnly && !isEntityType(this.types[i]!)) continue;
      const candidate = this.keys[i]!;
      if (!candidate.startsWith(prefix) && !candidate.includes(key) && !(candidate.length >= 4 && key.includes(candidate))) continue;
      scored.push({ i, d: distance(key, candidate.slice(0, key.length + 8)) });
    }
    scored.sort((a, b) => a.d - b.d || this.prominence[b.i]! - this.prominence[a.i]!);
    const seen = new Set<string>();
    const out: IndexedNode[] = [];
    for (const { i } of scored) {
      if (seen.has(this.keys[i]!)) continue;
      seen.add(this.keys[i]!);
      out.push(this.node(i));
      if (out.length >= (options.limit ?? 5)) break;
    }
    return out;
  }

  private node(i: number): IndexedNode {
    const id = this.ids[i]!;
    return {
      id,
      uri: `${this.ns.entity}${id}`,
      type: this.types[i]!,
      labels: this.labelSets[i]!,
      name: this.names[i]!,
      symbol: this.symbols[i],
      prominence: this.prominence[i]!,
    };
  }
}

