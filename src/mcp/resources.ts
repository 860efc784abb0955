/**
 * @module mcp/resources
 * What MCP clients can read: the schema, the signal catalog, the changes resource, and the entity and
 * signal-type templates. `ckg://signals/{signal_type}` and `ckg://changes` are also what a client
 * names in `subscriptions/listen` to hear new signals of a type, or graph changes (mcp/listen).
 */
import type { Services } from "../operations/context.ts";
import { feedPosition } from "../operations/event-stream.ts";
import { SIGNAL_TYPE_COUNT, entityIdentity, signalCatalog, signalTypeEntry } from "../operations/free-reads.ts";

export const CHANGES_URI = "ckg://changes";

/** The resource a signal type's events are heard on. */
export function signalTypeUri(signalType: string): string {
  return `ckg://signals/${signalType}`;
}

export const RESOURCES = [
  { uri: "ckg://schema", name: "schema", title: "Graph and time-series schema", description: "Ontology classes and predicates, ts_* tables and columns, data sources and provenance (GET /api/schema).", mimeType: "application/json" },
  { uri: "ckg://signals/catalog", name: "signals-catalog", title: "Signal catalog", description: `The ${SIGNAL_TYPE_COUNT} signal types: descriptions, scoring criteria, evidence schemas (GET /api/signals/catalog).`, mimeType: "application/json" },
  {
    uri: CHANGES_URI,
    name: "changes",
    title: "Graph changes",
    description:
      "Every CREATE and UPDATE of the graph as it happens: name ckg://changes in subscriptions/listen (protocol 2026-07-28) to get a " +
      "notifications/resources/updated per change, the change itself in _meta['ckg/event']. Reading it tells the event shape and the " +
      "current position; the changes tool lists past changes.",
    mimeType: "application/json",
  },
];

export const TEMPLATES = [
  { uriTemplate: "ckg://entity/{id}", name: "entity", title: "An entity", description: "One entity by its graph id (token/usd-coin), URI or name: its URI, type, labels and the other entities of the same name (free; its facts and figures: the explore tool).", mimeType: "application/json" },
  {
    uriTemplate: "ckg://signals/{signal_type}",
    name: "signal-type",
    title: "A signal type",
    description:
      `One of the ${SIGNAL_TYPE_COUNT} signal types (a slug of ckg://signals/catalog): its category, description, scoring criteria and evidence schema. ` +
      "Name it in subscriptions/listen (protocol 2026-07-28) to hear each signal of that type that a scan finds, updates or ends, without polling: " +
      "a notifications/resources/updated per event, the event in _meta['ckg/event'].",
    mimeType: "application/json",
  },
];

/** A resource's content, or undefined when the URI names none. */
export async function readResource(services: Services, uri: string): Promise<unknown> {
  if (uri === "ckg://schema") return services.snapshot().schema;
  if (uri === "ckg://signals/catalog") return signalCatalog();
  if (uri === CHANGES_URI) return changesResource(services);
  const signalType = /^ckg:\/\/signals\/([a-z0-9-]+)$/.exec(uri)?.[1];
  if (signalType) return signalTypeEntry(signalType);
  const entity = /^ckg:\/\/entity\/(.+)$/.exec(uri)?.[1];
  if (!entity) return undefined;
  return entityIdentity(services.snapshot(), decodeURIComponent(entity));
}

/**
 * What ckg://changes reads as: how to hear changes and where the feed stands. Not the changes
 * themselves: those are the (priced) changes tool's answer.
 */
async function changesResource(services: Services) {
  return {
    uri: CHANGES_URI,
    listen: "subscriptions/listen with notifications.resourceSubscriptions ['ckg://changes'] (protocol 2026-07-28)",
    notification: "notifications/resources/updated, uri ckg://changes, _meta['ckg/event'] = { id, type: 'change', timestamp, data }",
    event_data_fields: ["change_id", "entity_uri", "entity_name", "entity_type", "operation", "changed_fields", "source", "snapshot_id"],
    position: await feedPosition(services),
    past_changes: "the changes tool (GET /api/changes)",
  };
}
