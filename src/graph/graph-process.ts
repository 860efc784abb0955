/**
 * @module graph/graph-process
 * The body of a graph process (`ckg __graph-worker`): an in-memory Oxigraph store loaded from a
 * snapshot's N-Quads dump, answering the server over IPC. The server kills this process when a
 * query runs past its time limit and starts a fresh one.
 */
import { closeSync, openSync, readSync, fstatSync } from "node:fs";
import { EXIT } from "../exit-codes.ts";
import { oxigraph, type NamedNode } from "./oxigraph.ts";
import { encodeGraphResult, parseResults } from "./graph-results.ts";
import { LineReader, SocketWriter, encodeFrame } from "./graph-channel.ts";
import type { ConstructOptions, GraphRequest, GraphResult, QueryScope, SelectResult } from "./protocol.ts";
import { graphResultOfNTriples } from "./rdf-graph.ts";

const CHUNK = 16 << 20;

/** Reads a file in chunks so the parser never needs the whole dump (hundreds of MB) in one buffer. */
function* fileChunks(path: string): Generator<Uint8Array> {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    for (let offset = 0; offset < size; offset += CHUNK) {
      const buffer = new Uint8Array(Math.min(CHUNK, size - offset));
      readSync(fd, buffer, 0, buffer.length, offset);
      yield buffer;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * One in-memory Oxigraph store, loaded from a snapshot's dump: what a graph process holds (and
 * `ckg sparql` loads itself). Not a GraphStore (graph-store.ts): that is the server's view of its
 * graph processes or an external store.
 */
export class OxigraphStore {
  private store = new oxigraph.Store();

  load(file: string): { quads: number; ms: number } {
    const started = performance.now();
    const store = new oxigraph.Store();
    store.load(fileChunks(file), { format: "application/n-quads", lenient: true, no_transaction: true });
    this.store = store;
    return { quads: store.size, ms: Math.round(performance.now() - started) };
  }

  get size(): number {
    return this.store.size;
  }

  /** Runs a prepared (already guarded) SELECT or ASK query; the default graph is the union of all sources unless `scope` says otherwise. */
  select(query: string, scope: QueryScope = {}): SelectResult {
    return parseResults(this.selectJson(query, scope));
  }

  /** The same, as SPARQL 1.1 JSON results text: what crosses the process boundary, parsed once on the other side. */
  selectJson(query: string, scope: QueryScope = {}): string {
    return this.store.query(query, { ...datasetOptions(scope), results_format: "json" }) as string;
  }

  /** Runs a prepared CONSTRUCT (DESCRIBE arrives rewritten as one): its distinct triples, capped, in `format`. */
  construct(query: string, options: ConstructOptions): GraphResult {
    const ntriples = this.store.query(query, { ...datasetOptions(options), results_format: "application/n-triples" }) as string;
    return graphResultOfNTriples(ntriples, options);
  }
}

/**
 * Oxigraph's dataset options for a scope. Oxigraph lets the options override the query's own FROM,
 * so a query that names its dataset gets none (and so the query's), as SPARQL says.
 */
function datasetOptions(scope: QueryScope): { use_default_graph_as_union?: boolean; default_graph?: NamedNode[]; named_graphs?: NamedNode[] } {
  if (scope.dataset) {
    return { default_graph: scope.dataset.defaultGraphs.map((g) => oxigraph.namedNode(g)), named_graphs: scope.dataset.namedGraphs.map((g) => oxigraph.namedNode(g)) };
  }
  return scope.fromQuery ? {} : { use_default_graph_as_union: true };
}

/** Entry point of `ckg __graph-worker`: serve requests from the server until it goes away. */
export async function runGraphProcess(): Promise<void> {
  const path = process.env.CKG_GRAPH_SOCKET;
  const token = process.env.CKG_GRAPH_TOKEN;
  if (!path || !token) throw new Error("the graph process is started by ckg serve (CKG_GRAPH_SOCKET is not set)");
  const store = new OxigraphStore();
  const encoder = new TextEncoder();
  const lines = new LineReader();
  let writer: SocketWriter | undefined;

  const answer = (message: GraphRequest): Uint8Array => {
    try {
      let text: string;
      switch (message.kind) {
        case "load":
          text = JSON.stringify(store.load(message.file));
          break;
        case "select":
          text = store.selectJson(message.query, message);
          break;
        case "construct":
          text = encodeGraphResult(store.construct(message.query, message));
          break;
      }
      return encodeFrame(message.id, true, encoder.encode(text));
    } catch (error) {
      const code = message.kind === "load" ? "internal" : "invalid_sparql";
      return encodeFrame(message.id, false, encoder.encode(JSON.stringify({ code, message: (error as Error).message ?? String(error) })));
    }
  };

  await Bun.connect({
    unix: path,
    socket: {
      open(socket) {
        writer = new SocketWriter(socket);
        writer.write(encodeFrame(0, true, encoder.encode(token)));
      },
      data(_socket, chunk) {
        lines.push(chunk, (line) => writer!.write(answer(JSON.parse(line) as GraphRequest)));
      },
      drain() {
        writer?.drain();
      },
      // The server went away: nothing left to serve.
      close() {
        process.exit(EXIT.ok);
      },
      error() {
        process.exit(EXIT.failure);
      },
    },
  });
}
