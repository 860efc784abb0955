/**
 * @module graph/open-store
 * Picks the graph store a server queries (graph/graph-store.ts): an external SPARQL store when
 * `sparql_url` is set, else its own graph processes.
 */
import type { Config } from "../config/config.ts";
import type { Logger } from "../log.ts";
import { GraphPool } from "./graph-pool.ts";
import type { GraphStore } from "./graph-store.ts";
import { RemoteSparqlStore } from "./remote-store.ts";

export type { GraphStore };

/** The external store when `sparql_url` is set, else graph processes started with `command`. */
export function openGraphStore(config: Pick<Config, "sparql_url" | "sparql_auth" | "sparql_dataset" | "graph_replicas">, command: string[], log: Logger): GraphStore {
  if (config.sparql_url) return new RemoteSparqlStore({ url: config.sparql_url, auth: config.sparql_auth, dataset: config.sparql_dataset, log });
  return new GraphPool({ replicas: config.graph_replicas, command, log });
}
