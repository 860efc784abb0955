/**
 * @module timeseries/sql-tree
 * Walking the syntax tree DuckDB's json_serialize_sql gives of a query: what the guard
 * (timeseries/sql-guard.ts) checks and what the entity route (timeseries/entity-route.ts) reads.
 */

export type Node = Record<string, unknown>;

/** Visits every object of the tree, parents before children. */
export function walk(value: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (value && typeof value === "object") {
    visit(value as Node);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

/** The names of every common table expression of the tree, lower case. */
export function cteNames(value: unknown): Set<string> {
  const names = new Set<string>();
  walk(value, (node) => {
    const map = (node.cte_map as { map?: { key?: string }[] } | undefined)?.map;
    if (Array.isArray(map)) for (const entry of map) if (entry.key) names.add(entry.key.toLowerCase());
  });
  return names;
}
