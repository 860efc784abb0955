/**
 * @module search/onnx-embedder
 * A local sentence-embedding model, run with onnxruntime-node on the CPU: a directory holding
 * `model.onnx` (or `onnx/model.onnx`, the Hugging Face export layout), `tokenizer.json` and,
 * optionally, `tokenizer_config.json`. Models that output `sentence_embedding` are used as they
 * are; others (`last_hidden_state`) are mean-pooled over the attention mask, as sentence-transformers
 * does. Vectors are scaled to unit length.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { CkgError } from "../errors.ts";
import type { Corpus } from "./corpus.ts";
import { type Embedder, embedTexts, normalize } from "./embedder.ts";

/** Texts per model run when a snapshot is indexed. */
const BATCH = 32;
/** Longest input in tokens (BERT-style models stop at 512; entity texts are shorter anyway). */
const MAX_TOKENS = 256;

type Ort = typeof import("onnxruntime-node");

interface Loaded {
  ort: Ort;
  session: InferenceSession;
  tokenizer: Tokenizer;
  maxTokens: number;
  padId: number;
}

export class OnnxEmbedder implements Embedder {
  readonly spec: string;

  private constructor(
    readonly dir: string,
    private readonly loaded: Loaded,
    readonly dims: number,
  ) {
    this.spec = `onnx:${dir}`;
  }

  /** Loads the model and tokenizer, and learns the vector size from one run. */
  static async open(dir: string): Promise<OnnxEmbedder> {
    const root = resolve(dir);
    const modelPath = [join(root, "model.onnx"), join(root, "onnx", "model.onnx")].find((p) => existsSync(p));
    const tokenizerPath = join(root, "tokenizer.json");
    if (!modelPath || !existsSync(tokenizerPath)) {
      throw new CkgError(
        "invalid_request",
        `The ONNX model directory ${root} needs model.onnx (or onnx/model.onnx) and tokenizer.json.`,
        { details: { dir: root } },
      );
    }
    const configPath = join(root, "tokenizer_config.json");
    const config = existsSync(configPath) ? (JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>) : {};
    const tokenizer = new Tokenizer(JSON.parse(readFileSync(tokenizerPath, "utf8")), config);
    const ort = await loadOrt();
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 2, graphOptimizationLevel: "all" });
    const declared = typeof config.model_max_length === "number" ? config.model_max_length : MAX_TOKENS;
    const padToken = typeof config.pad_token === "string" ? config.pad_token : "[PAD]";
    const loaded: Loaded = {
      ort,
      session,
      tokenizer,
      maxTokens: Math.min(MAX_TOKENS, declared),
      padId: tokenizer.token_to_id(padToken) ?? 0,
    };
    const [probe] = await run(loaded, ["dimension probe"]);
    return new OnnxEmbedder(root, loaded, probe!.length);
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await run(this.loaded, [text]);
    return normalize(vector!);
  }

  embedEntities(corpus: Corpus, ids: string[]): Promise<Float32Array> {
    return embedTexts(ids, (id) => corpus.text(id), this.dims, BATCH, (texts) => run(this.loaded, texts));
  }
}

async function loadOrt(): Promise<Ort> {
  try {
    return await import("onnxruntime-node");
  } catch (error) {
    throw new CkgError(
      "internal",
      `The ONNX embedder needs onnxruntime-node, which could not be loaded (${(error as Error).message}). ` +
        "Run ckg from its source checkout (npm start), where npm install provides it.",
      { cause: error },
    );
  }
}

/** Tokenizes a batch (padded to its longest text), runs the model, and pools one vector per text. */
async function run({ ort, session, tokenizer, maxTokens, padId }: Loaded, texts: string[]): Promise<Float32Array[]> {
  const encoded = texts.map((text) => {
    const e = tokenizer.encode(text, { return_token_type_ids: true });
    if (e.ids.length <= maxTokens) return e;
    // Keep the closing special token ([SEP]) that the model expects at the end.
    const cut = <T>(a: T[]) => [...a.slice(0, maxTokens - 1), a.at(-1)!];
    return { ...e, ids: cut(e.ids), attention_mask: cut(e.attention_mask), token_type_ids: cut(e.token_type_ids) };
  });
  const length = Math.max(1, ...encoded.map((e) => e.ids.length));
  const shape = [texts.length, length];
  const tensor = (pick: (e: (typeof encoded)[number]) => number[], pad: number) => {
    const data = new BigInt64Array(texts.length * length).fill(BigInt(pad));
    encoded.forEach((e, row) => pick(e).forEach((v, i) => (data[row * length + i] = BigInt(v))));
    return new ort.Tensor("int64", data, shape);
  };
  const feeds: Record<string, Tensor> = {};
  const mask = tensor((e) => e.attention_mask, 0);
  for (const name of session.inputNames) {
    if (name === "input_ids") feeds[name] = tensor((e) => e.ids, padId);
    else if (name === "attention_mask") feeds[name] = mask;
    else if (name === "token_type_ids") feeds[name] = tensor((e) => e.token_type_ids ?? [], 0);
    else throw new CkgError("invalid_request", `The ONNX model wants an input named '${name}'; ckg feeds input_ids, attention_mask and token_type_ids.`);
  }
  const outputs = await session.run(feeds);
  const pooled = outputs.sentence_embedding;
  if (pooled) {
    const dims = pooled.dims[1]!;
    const data = pooled.data as Float32Array;
    return texts.map((_, row) => data.slice(row * dims, (row + 1) * dims));
  }
  const hidden = outputs.last_hidden_state ?? outputs[session.outputNames[0]!]!;
  if (hidden.dims.length !== 3) {
    throw new CkgError("invalid_request", `The ONNX model's output '${session.outputNames[0]}' has shape [${hidden.dims}]; ckg expects [batch, tokens, dims] or a sentence_embedding output.`);
  }
  return meanPool(hidden.data as Float32Array, mask.data as BigInt64Array, texts.length, length, hidden.dims[2]!);
}

/** The mean of each text's token vectors over its real (unmasked) tokens. */
function meanPool(hidden: Float32Array, mask: BigInt64Array, batch: number, length: number, dims: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let row = 0; row < batch; row++) {
    const vector = new Float32Array(dims);
    let count = 0;
    for (let t = 0; t < length; t++) {
      if (mask[row * length + t] === 0n) continue;
      count++;
      const base = (row * length + t) * dims;
      for (let j = 0; j < dims; j++) vector[j]! += hidden[base + j]!;
    }
    if (count > 0) for (let j = 0; j < dims; j++) vector[j]! /= count;
    out.push(vector);
  }
  return out;
}
