/**
 * The floor for the graph benchmark's HTTP figure: Bun.serve answering SPARQL from an Oxigraph store
 * on its own main thread. No framework, no validation, no logging, no process or thread hop, and no
 * time limit (a runaway query would stall it): what any HTTP server in front of this engine adds at
 * the least on this machine. Not a product path. Prints its port once the store is loaded.
 *
 * `bun scripts/bench/bare-sparql-server.ts <graph.nq> <namespaces JSON>`
 */
import { OxigraphStore } from "../../src/graph/graph-process.ts";
import { prepareQuery } from "../../src/graph/sparql.ts";

const [file, namespaces] = process.argv.slice(2);
const store = new OxigraphStore();
store.load(file!);
const ns = JSON.parse(namespaces!);
const server = Bun.serve({
  port: 0,
  async fetch(request) {
    const { query } = (await request.json()) as { query: string };
    return new Response(store.selectJson(prepareQuery(query, ns).query), { headers: { "content-type": "application/json" } });
  },
});
console.log(server.port);
process.on("SIGTERM", () => process.exit(0));
