/**
 * @module search/nearest-worker
 * A k-means helper of a search index build (ivf.ts): it is sent a share of the vectors and the
 * centroid codes in shared memory, and answers each vector's nearest centroid. Listed as an
 * entrypoint of the executable (scripts/release/compile.ts).
 */
import { type NearestJob, nearestOf } from "./ivf.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<NearestJob>) => {
  try {
    const assignment = nearestOf(event.data);
    self.postMessage({ assignment }, { transfer: [assignment.buffer as ArrayBuffer] });
  } catch (error) {
    self.postMessage({ error: (error as Error).message });
  }
};
