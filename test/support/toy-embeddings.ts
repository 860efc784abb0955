/**
 * Stand-ins for third-party embedding models we cannot download here: a tiny "concept" model where
 * synonyms share a direction ("dex", "swap", "exchange" are one concept). It is served two ways,
 * exactly as the real ones are: as an ONNX model directory (model.onnx: a Gather over an embedding
 * table, so the output is last_hidden_state and ckg mean-pools it; tokenizer.json: BERT WordPiece)
 * and as an OpenAI-compatible /embeddings HTTP server on localhost.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onnx } from "onnx-proto";

/** Each row is one concept; its words embed to the same unit direction. */
const CONCEPTS = [
  ["dex", "dexes", "exchange", "swap", "amm", "trade", "trading"],
  ["lending", "lend", "borrow", "loan", "loans", "money", "credit"],
  ["staking", "stake", "staked", "validator", "restaking", "restake"],
  ["bridge", "bridges", "portal", "crosschain"],
  ["oracle", "oracles", "price", "feeds", "feed"],
  ["insurance", "cover", "shield"],
  ["stablecoin", "stablecoins", "stable", "pegged"],
  ["fund", "venture", "capital", "investor", "ventures"],
  ["chain", "blockchain", "network", "mainnet", "layer"],
  ["pool", "pools", "liquidity", "vault"],
] as const;
/** One more dimension for every other word, weakly, so no text embeds to zero. */
export const TOY_DIMS = CONCEPTS.length + 1;
const OTHER_WEIGHT = 0.05;

const conceptOf = new Map<string, number>(CONCEPTS.flatMap((words, c) => words.map((w) => [w, c] as const)));

/** The toy model's sentence vector (unnormalised): the mean of its words' concept vectors. */
export function toyEmbedding(text: string): number[] {
  const vector = new Array<number>(TOY_DIMS).fill(0);
  const words = text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  for (const word of words) {
    const c = conceptOf.get(word);
    if (c === undefined) vector[TOY_DIMS - 1]! += OTHER_WEIGHT;
    else vector[c]! += 1;
  }
  return vector.map((v) => v / Math.max(1, words.length));
}

const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"] as const;

/** Writes model.onnx and tokenizer.json of the toy model into dir. */
export function writeToyOnnxModel(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const vocab = [...SPECIAL, ...conceptOf.keys()];
  const table = new Float32Array(vocab.length * TOY_DIMS);
  vocab.forEach((token, id) => {
    const c = conceptOf.get(token);
    if (c !== undefined) table[id * TOY_DIMS + c] = 1;
    else if (token === "[UNK]") table[id * TOY_DIMS + TOY_DIMS - 1] = OTHER_WEIGHT;
  });
  const tensor = onnx.TensorProto.create({
    name: "embeddings",
    dataType: onnx.TensorProto.DataType.FLOAT,
    dims: [vocab.length, TOY_DIMS],
    rawData: new Uint8Array(table.buffer),
  });
  const valueInfo = (name: string, elemType: number, dims: (string | number)[]) =>
    onnx.ValueInfoProto.create({
      name,
      type: {
        tensorType: {
          elemType,
          shape: { dim: dims.map((d) => (typeof d === "string" ? { dimParam: d } : { dimValue: d })) },
        },
      },
    });
  const graph = onnx.GraphProto.create({
    name: "toy",
    node: [onnx.NodeProto.create({ opType: "Gather", input: ["embeddings", "input_ids"], output: ["last_hidden_state"], attribute: [] })],
    initializer: [tensor],
    input: [valueInfo("input_ids", onnx.TensorProto.DataType.INT64, ["batch", "tokens"])],
    output: [valueInfo("last_hidden_state", onnx.TensorProto.DataType.FLOAT, ["batch", "tokens", TOY_DIMS])],
  });
  const model = onnx.ModelProto.create({ irVersion: 8, producerName: "ckg-test", opsetImport: [{ domain: "", version: 13 }], graph });
  writeFileSync(join(dir, "model.onnx"), onnx.ModelProto.encode(model).finish());

  const special = (content: string, id: number) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((t, i) => special(t, i)),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [2], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [3], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({ model_max_length: 128, pad_token: "[PAD]" }));
}

export interface FakeEmbeddingsApi {
  url: string;
  /** Requests received, with their bodies. */
  calls: { model: string; input: string[]; authorization: string | null }[];
  /** While set, the server answers this status instead of embeddings. */
  failWith: number | undefined;
  stop(): void;
}

/** An OpenAI-compatible embeddings server on a free localhost port, answering with the toy model. */
export function startFakeEmbeddingsApi(): FakeEmbeddingsApi {
  const api: FakeEmbeddingsApi = {
    url: "",
    calls: [],
    failWith: undefined,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (request.method !== "POST" || path !== "/v1/embeddings") return new Response("not found", { status: 404 });
      const body = (await request.json()) as { model: string; input: string | string[] };
      const input = typeof body.input === "string" ? [body.input] : body.input;
      api.calls.push({ model: body.model, input, authorization: request.headers.get("authorization") });
      if (api.failWith !== undefined) return Response.json({ error: { message: "overloaded" } }, { status: api.failWith });
      return Response.json({
        object: "list",
        model: body.model,
        data: input.map((text, index) => ({ object: "embedding", index, embedding: toyEmbedding(text) })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    },
  });
  api.url = `http://127.0.0.1:${server.port}/v1`;
  return api;
}
