/**
 * @module search/embedders
 * Which embedder to use, from the `embedder` setting (for a new snapshot) or from a snapshot's
 * manifest (for its queries: vectors only compare with vectors made the same way).
 */
import type { Config } from "../config/config.ts";
import type { SnapshotManifest } from "../store/manifest.ts";
import { type Embedder, LsaEmbedder } from "./embedder.ts";
import { loadLsa } from "./lsa.ts";
import { OnnxEmbedder } from "./onnx-embedder.ts";
import { OpenAiEmbedder } from "./openai-embedder.ts";

export type EmbedderSpec = { kind: "lsa" } | { kind: "onnx"; dir: string } | { kind: "openai"; url: string };

export type EmbedderSettings = Pick<Config, "embedder" | "embeddings_model" | "embeddings_api_key" | "query_timeout_ms">;

function parseEmbedderSpec(spec: string): EmbedderSpec {
  if (spec === "lsa") return { kind: "lsa" };
  if (spec.startsWith("onnx:")) return { kind: "onnx", dir: spec.slice("onnx:".length) };
  if (spec.startsWith("openai:")) return { kind: "openai", url: spec.slice("openai:".length) };
  throw new Error(`unknown embedder '${spec}': expected lsa, onnx:<model directory> or openai:<base url>`);
}

/**
 * The embedder a new snapshot is indexed with, when it comes from outside the snapshot; undefined
 * for lsa, which the build learns from the snapshot's own corpus.
 */
export async function configuredEmbedder(settings: EmbedderSettings): Promise<Embedder | undefined> {
  const spec = parseEmbedderSpec(settings.embedder);
  if (spec.kind === "lsa") return undefined;
  return openEmbedder(spec, settings, settings.embeddings_model);
}

/** The model name a snapshot records for its embedder (the API model; none for lsa and onnx). */
export function embedderModel(settings: EmbedderSettings): string | null {
  return parseEmbedderSpec(settings.embedder).kind === "openai" ? settings.embeddings_model : null;
}

/** The embedder that made a snapshot's vectors, for its queries. */
export async function snapshotEmbedder(
  searchDir: string,
  search: SnapshotManifest["search"],
  settings: EmbedderSettings,
): Promise<Embedder> {
  const spec = parseEmbedderSpec(search.embedder);
  const embedder = spec.kind === "lsa" ? new LsaEmbedder(loadLsa(searchDir)) : await openEmbedder(spec, settings, search.model ?? settings.embeddings_model);
  if (embedder.dims !== search.dims) {
    throw new Error(`the embedder ${search.embedder} makes ${embedder.dims}-dimensional vectors, but the snapshot's index holds ${search.dims}`);
  }
  return embedder;
}

function openEmbedder(spec: Exclude<EmbedderSpec, { kind: "lsa" }>, settings: EmbedderSettings, model: string): Promise<Embedder> {
  if (spec.kind === "onnx") return OnnxEmbedder.open(spec.dir);
  return OpenAiEmbedder.open({ url: spec.url, model, apiKey: settings.embeddings_api_key, queryTimeoutMs: settings.query_timeout_ms });
}
