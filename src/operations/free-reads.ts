/**
 * @module operations/free-reads
 * What a client reads for free beside the priced operations, as MCP's resources serve it
 * (mcp/resources.ts): the signal catalog (the answer of GET /api/signals/catalog) and each type of
 * it, and who an entity is: its URI, type and names, not its facts, which are the explore
 * operation's. The transports reach signals/ and graph/ only through here and the operations.
 */
import type { IndexedNode } from "../entities/name-index.ts";
import { resolveEntity } from "../graph/explore.ts";
import { type Catalog, signalCatalog } from "../signals/catalog.ts";
import { DETECTORS } from "../signals/detectors/index.ts";
import type { LiveSnapshot } from "./context.ts";

export { signalCatalog };

/** How many signal types there are. */
export const SIGNAL_TYPE_COUNT = DETECTORS.length;

/** One signal type of the catalog, by its slug; undefined for a slug no type has. */
export function signalTypeEntry(slug: string): Catalog["signal_types"][number] | undefined {
  return signalCatalog().signal_types.find((t) => t.slug === slug);
}

/** Who an entity is, and the other entities of the name asked. */
export interface EntityIdentity extends Pick<IndexedNode, "uri" | "id" | "name" | "type" | "labels"> {
  other_entities_named_alike: Pick<IndexedNode, "uri" | "name" | "type">[];
}

/**
 * An entity by its graph id (token/usd-coin), URI or name, and the other entities of that name;
 * 404 entity_not_found, with the closest names, when none matches.
 */
export function entityIdentity(live: Pick<LiveSnapshot, "names">, id: string): EntityIdentity {
  const node = live.names.get(id);
  const { node: found, others } = node ? { node, others: [] } : resolveEntity(live.names, id);
  return {
    uri: found.uri,
    id: found.id,
    name: found.name,
    type: found.type,
    labels: found.labels,
    other_entities_named_alike: others.map((o) => ({ uri: o.uri, name: o.name, type: o.type })),
  };
}
