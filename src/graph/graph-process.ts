/**
 * @module graph/graph-process
 * The body of a graph process (`ckg __graph-worker`): an in-memory Oxigraph store loaded from a
 * snapshot's N-Quads dump, answering the server over IPC. The server kills this process when a
 * query runs past its time limit and starts a fresh one.
 */
import { closeSync, openSync, readSync, fstatSync } from "node:fs";
import { oxigraph } from "./oxigraph.ts";
import { parseResults } from "./graph-results.ts";
import { LineReader, SocketWriter, encodeFrame } from "./graph-channel.ts";
import type { GraphRequest, Neighbourhood, Related, SelectResult } from "./protocol.ts";
import { RDF_TYPE, SCHEMA_NAME } from "../entities/vocabulary.ts";

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

export class GraphStore {
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

  /** Runs a prepared (already guarded) SELECT or ASK query; the default graph is the union of all sources. */
  select(query: string): SelectResult {
    return parseResults(this.selectJson(query));
  }

  /** The same, as SPARQL 1.1 JSON results text: what crosses the process boundary, parsed once on the other side. */
  selectJson(query: string): string {
    return this.store.query(query, { use_default_graph_as_union: true, results_format: "json" }) as string;
  }

  neighbourhood(uri: string, limit: number, outgoingLimit: number): Neighbourhood {
    const iri = `<${uri}>`;
    const name = `<${SCHEMA_NAME}>`;
    const type = `<${RDF_TYPE}>`;
    const outRows = this.select(
      `SELECT ?p ?o ?g ?name ?type WHERE { GRAPH ?g { ${iri} ?p ?o } OPTIONAL { ?o ${name} ?name } OPTIONAL { ?o ${type} ?type } } LIMIT ${outgoingLimit}`,
    ).rows;
    const outgoing = new Map<string, Neighbourhood["outgoing"][number]>();
    for (const row of outRows) {
      const key = `${row.p!.value}|${row.o!.type}|${row.o!.value}|${row.g!.value}`;
      let entry = outgoing.get(key);
      if (!entry) {
        entry = { predicate: row.p!.value, object: row.o!, graph: row.g!.value, name: row.name?.value, types: [] };
        outgoing.set(key, entry);
      }
      if (row.type && !entry.types.includes(row.type.value)) entry.types.push(row.type.value);
    }

    const counts = this.select(`SELECT ?p (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s ?p ${iri} } GROUP BY ?p`).rows;
    const incoming: Neighbourhood["incoming"] = [];
    for (const row of counts) {
      const predicate = row.p!.value;
      const rows = this.select(
        `SELECT ?s ?g ?name ?type WHERE { { SELECT DISTINCT ?s WHERE { ?s <${predicate}> ${iri} } LIMIT ${limit} } ` +
          `GRAPH ?g { ?s <${predicate}> ${iri} } OPTIONAL { ?s ${name} ?name } OPTIONAL { ?s ${type} ?type } }`,
      ).rows;
      const items = new Map<string, Related>();
      for (const item of rows) {
        const key = `${item.s!.value}|${item.g!.value}`;
        let related = items.get(key);
        if (!related) items.set(key, (related = { uri: item.s!.value, name: item.name?.value, graph: item.g!.value, types: [] }));
        if (item.type && !related.types.includes(item.type.value)) related.types.push(item.type.value);
      }
      incoming.push({ predicate, total: Number(row.n!.value), items: [...items.values()] });
    }
    return { exists: outgoing.size > 0, outgoing: [...outgoing.values()], incoming };
  }
}

/** Entry point of `ckg __graph-worker`: serve requests from the server until it goes away. */
export async function runGraphProcess(): Promise<void> {
  const path = process.env.CKG_GRAPH_SOCKET;
  const token = process.env.CKG_GRAPH_TOKEN;
  if (!path || !token) throw new Error("the graph process is started by ckg serve (CKG_GRAPH_SOCKET is not set)");
  const store = new GraphStore();
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
          text = store.selectJson(message.query);
          break;
        case "neighbourhood":
          text = JSON.stringify(store.neighbourhood(message.uri, message.limit, message.outgoingLimit));
          break;
      }
      return encodeFrame(message.id, true, encoder.encode(text));
    } catch (error) {
      const code = message.kind === "select" ? "invalid_sparql" : "internal";
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
        process.exit(0);
      },
      error() {
        process.exit(1);
      },
    },
  });
}
