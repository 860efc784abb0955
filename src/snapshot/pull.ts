/**
 * @module snapshot/pull
 * `ckg snapshot pull <url>`: a pack read over HTTP(S) straight into the install (nothing is saved
 * but the checked files in the staging folder). Any static file server, object store or CDN can
 * hand out packs: the trust is in the signature, not in the server.
 */
import { Readable } from "node:stream";

/** A download that gives no byte for this long is given up (the transfer as a whole has no limit: a full snapshot is 8 GB). */
const PULL_IDLE_MS = 60_000;

/** The body of `url` as a stream; an error naming the URL when it cannot be had. */
export async function openPackUrl(url: string, idleMs = PULL_IDLE_MS): Promise<Readable> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => abort.abort(new Error(`${url} sent nothing for ${idleMs / 1000} s`)), idleMs);
  };
  arm();
  let response: Response;
  try {
    response = await fetch(url, { signal: abort.signal, headers: { accept: "application/x-tar, application/octet-stream" } });
  } catch (error) {
    clearTimeout(timer);
    throw new Error(`cannot download ${url}: ${abort.signal.aborted ? (abort.signal.reason as Error).message : (error as Error).message}`);
  }
  if (!response.ok || !response.body) {
    clearTimeout(timer);
    await response.body?.cancel();
    throw new Error(`cannot download ${url}: it answered ${response.status} ${response.statusText}`.trimEnd());
  }
  const reader = response.body.getReader();
  async function* body(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        arm();
        const { done, value } = await reader.read().catch((error: Error) => {
          throw new Error(`downloading ${url} failed: ${abort.signal.aborted ? (abort.signal.reason as Error).message : error.message}`);
        });
        if (done) return;
        yield value;
      }
    } finally {
      clearTimeout(timer);
      await reader.cancel().catch(() => undefined);
    }
  }
  return Readable.from(body(), { objectMode: false });
}
