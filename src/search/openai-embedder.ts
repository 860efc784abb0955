/**
 * @module search/openai-embedder
 * An OpenAI-compatible embeddings API (`POST <base url>/embeddings` with `{model, input}`; OpenAI,
 * and the servers that mimic it: vLLM, Ollama, LocalAI, text-embeddings-inference). Used only when
 * configured: the snapshot build sends entity texts in batches, and each search query sends its
 * text (answers are cached, so a repeated query costs no call).
 */
import { LRUCache } from "lru-cache";
import { CkgError } from "../errors.ts";
import type { Corpus } from "./corpus.ts";
import { type Embedder, embedTexts, normalize } from "./embedder.ts";

/** Texts per request when a snapshot is indexed (OpenAI accepts up to 2048). */
const BATCH = 256;
/** Attempts per batch at build time: a long build should survive a brief outage or a 429. */
const BUILD_ATTEMPTS = 4;
const BUILD_TIMEOUT_MS = 120_000;
const QUERY_CACHE = 2000;

export interface OpenAiOptions {
  /** Base URL, such as https://api.openai.com/v1. */
  url: string;
  model: string;
  apiKey?: string;
  /** Time limit of one query's call. */
  queryTimeoutMs: number;
}

interface EmbeddingsResponse {
  data: { index: number; embedding: number[] }[];
}

export class OpenAiEmbedder implements Embedder {
  readonly spec: string;
  private readonly cache = new LRUCache<string, Float32Array>({ max: QUERY_CACHE });

  private constructor(
    private readonly options: OpenAiOptions,
    readonly dims: number,
  ) {
    this.spec = `openai:${options.url}`;
  }

  /** Checks the endpoint answers and learns the vector size. */
  static async open(options: OpenAiOptions): Promise<OpenAiEmbedder> {
    const [probe] = await request(options, ["dimension probe"], options.queryTimeoutMs);
    return new OpenAiEmbedder(options, probe!.length);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const cached = this.cache.get(text);
    if (cached) return cached;
    const [vector] = await request(this.options, [text], this.options.queryTimeoutMs);
    const unit = normalize(vector!);
    this.cache.set(text, unit);
    return unit;
  }

  embedEntities(corpus: Corpus, ids: string[]): Promise<Float32Array> {
    return embedTexts(ids, (id) => corpus.text(id), this.dims, BATCH, (texts) => withRetries(() => request(this.options, texts, BUILD_TIMEOUT_MS)));
  }
}

async function withRetries<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= BUILD_ATTEMPTS || (error as CkgError).details?.retryable === false) throw error;
      await Bun.sleep(1000 * 2 ** (n - 1));
    }
  }
}

async function request(options: OpenAiOptions, input: string[], timeoutMs: number): Promise<Float32Array[]> {
  const endpoint = `${options.url.replace(/\/+$/, "")}/embeddings`;
  const fail = (reason: string, retryable: boolean, cause?: unknown) =>
    new CkgError("upstream_unavailable", `The embeddings service at ${endpoint} failed: ${reason}.`, {
      details: { endpoint, retryable },
      retryAfterSeconds: retryable ? 5 : undefined,
      cause,
    });
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
      body: JSON.stringify({ model: options.model, input }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = (error as Error).name === "TimeoutError";
    throw fail(timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message, true, error);
  }
  if (!response.ok) {
    const body = (await response.text().catch(() => "")).slice(0, 300);
    throw fail(`HTTP ${response.status}${body ? ` (${body})` : ""}`, response.status === 429 || response.status >= 500);
  }
  const body = (await response.json().catch(() => null)) as EmbeddingsResponse | null;
  const data = body?.data;
  if (!Array.isArray(data) || data.length !== input.length || data.some((d) => !Array.isArray(d?.embedding))) {
    throw fail(`the answer is not an embeddings list of ${input.length}`, false);
  }
  const vectors: Float32Array[] = new Array(input.length);
  data.forEach((d, i) => (vectors[typeof d.index === "number" ? d.index : i] = Float32Array.from(d.embedding)));
  return vectors;
}
