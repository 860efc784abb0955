/**
 * @module search/vector-worker
 * A worker thread holding every row of the vector index (vector-shard.ts): opened once, then
 * answers whole questions, the least busy worker taking each (vector-index.ts). The first worker
 * opened writes the int8 codes into a shared memory it hands back; the others open on it. Listed as an entrypoint of the executable (scripts/build.ts).
 */
import { type ScanReply, type ScanRequest, VectorShard } from "./vector-shard.ts";

declare const self: Worker;

let shard: VectorShard | undefined;
const reply = (message: ScanReply) => self.postMessage(message);

self.onmessage = (event: MessageEvent<ScanRequest>) => {
  const request = event.data;
  try {
    if (request.kind === "open") {
      shard = VectorShard.open(request);
      reply({ kind: "opened", codes: shard.codes });
      return;
    }
    if (!shard) throw new Error("scan before open");
    reply({ kind: "hits", id: request.id, hits: shard.search(request.query, request.k, request.types) });
  } catch (error) {
    reply({ kind: "failed", id: request.kind === "scan" ? request.id : undefined, error: (error as Error).message });
  }
};
