/**
 * The two embedders a user can configure instead of the learned LSA: a local ONNX model directory
 * (run by the real onnxruntime-node) and an OpenAI-compatible embeddings URL (a fake server on
 * localhost, since the real APIs are third parties we cannot reach). Both end to end: `ckg build
 * --embedder ...` indexes a snapshot with them, and the served search embeds queries with them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createServer } from "../../src/supervisor/assemble.ts";
import { silentLogger } from "../../src/log.ts";
import { selfCommand } from "../../src/runtime.ts";
import { OnnxEmbedder } from "../../src/search/onnx-embedder.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { readManifest } from "../../src/store/manifest.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { FIXTURE_SCALE, json, testConfig } from "../support/fixture.ts";
import { type FakeEmbeddingsApi, TOY_DIMS, startFakeEmbeddingsApi, toyEmbedding, writeToyOnnxModel } from "../support/toy-embeddings.ts";
import { tempDir } from "../support/temp-dirs.ts";

const scratch = tempDir("ckg-embedders-");

/** Runs `ckg build` in its own process (async: the fake API answers from this one). */
async function build(dir: string, embedder: string, env: Record<string, string> = {}) {
  const child = Bun.spawn(selfCommand("build", "--data-dir", dir, "--scale", String(FIXTURE_SCALE), "--embedder", embedder), {
    env: { ...process.env, CKG_LOG_LEVEL: "silent", ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  if ((await child.exited) !== 0) throw new Error(`ckg build failed: ${await new Response(child.stderr).text()}`);
}

/** Real services over a data directory, with a request helper. */
async function serve(dir: string, overrides: Parameters<typeof testConfig>[0] = {}) {
  const services = await Supervisor.open(testConfig({ data_dir: dir, ...overrides }), silentLogger);
  await services.start();
  const app = createServer(services, { baseUrl: "http://127.0.0.1:8402" });
  const post = (path: string, body: unknown) =>
    app.handle(new Request(`http://127.0.0.1:8402${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).then(json);
  return { services, post };
}

function liveManifest(root: string) {
  const dir = dataDir(root);
  return readManifest(snapshotPath(dir, currentSnapshotId(dir)!));
}

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
};

/** The category of each result, through SPARQL. */
async function categories(post: Awaited<ReturnType<typeof serve>>["post"], uris: string[]): Promise<string[]> {
  const values = uris.map((u) => `<${u}>`).join(" ");
  const { body } = await post("/api/sparql", { query: `SELECT ?e ?c WHERE { VALUES ?e { ${values} } ?e ckg:category ?c }` });
  return uris.map((u) => (body.data as { e: string; c: string }[]).find((r) => r.e === u)?.c ?? "");
}

describe("a local ONNX model directory (embedder onnx:<dir>)", () => {
  const modelDir = join(scratch, "toy-model");
  beforeAll(() => writeToyOnnxModel(modelDir));

  test("loads model.onnx and tokenizer.json, learns the vector size, and mean-pools token vectors into unit vectors", async () => {
    const embedder = await OnnxEmbedder.open(modelDir);
    expect(embedder.dims).toBe(TOY_DIMS);
    for (const text of ["Decentralized exchange", "borrow and lend", "a bridge between chains"]) {
      const vector = await embedder.embedQuery(text);
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
      expect(cosine(vector, toyEmbedding(text))).toBeGreaterThan(0.999);
    }
    const dex = await embedder.embedQuery("dex");
    expect(cosine(dex, await embedder.embedQuery("swap"))).toBeGreaterThan(0.99);
    expect(cosine(dex, await embedder.embedQuery("loan"))).toBeLessThan(0.1);
  });

  test("a directory without a model is a clear error naming the files it needs", async () => {
    const promise = OnnxEmbedder.open(join(scratch, "no-such-model"));
    await expect(promise).rejects.toThrow("needs model.onnx (or onnx/model.onnx) and tokenizer.json");
  });

  test("ckg build --embedder onnx:<dir> indexes the snapshot with it, and search embeds queries with it", async () => {
    const dir = join(scratch, "onnx-data");
    await build(dir, `onnx:${modelDir}`);
    const manifest = liveManifest(dir);
    expect(manifest.search).toMatchObject({ embedder: `onnx:${modelDir}`, dims: TOY_DIMS, model: null });
    const { services, post } = await serve(dir);
    try {
      const { status, body } = await post("/api/search", { query: "swap", entity_types: ["Protocol"], limit: 5 });
      expect(status).toBe(200);
      expect(await categories(post, body.results.map((r: { uri: string }) => r.uri))).toEqual(Array(5).fill("Dexes"));
    } finally {
      await services.close();
    }
  });
});

describe("an OpenAI-compatible embeddings URL (embedder openai:<url>)", () => {
  let api: FakeEmbeddingsApi;
  const dir = join(scratch, "openai-data");
  beforeAll(async () => {
    api = startFakeEmbeddingsApi();
    await build(dir, `openai:${api.url}`, { CKG_EMBEDDINGS_API_KEY: "sk-test", CKG_EMBEDDINGS_MODEL: "toy-embed-1" });
  });
  afterAll(() => api.stop());

  test("the build sends every entity's text in batches, with the configured model and key", () => {
    const manifest = liveManifest(dir);
    expect(manifest.search).toMatchObject({ embedder: `openai:${api.url}`, model: "toy-embed-1", dims: TOY_DIMS });
    const buildCalls = api.calls.filter((c) => c.input[0] !== "dimension probe");
    const texts = buildCalls.reduce((n, c) => n + c.input.length, 0);
    expect(texts).toBe(Object.values(manifest.search.counts).reduce((a, b) => a + b, 0));
    expect(Math.max(...buildCalls.map((c) => c.input.length))).toBeLessThanOrEqual(256);
    for (const call of api.calls) expect(call).toMatchObject({ model: "toy-embed-1", authorization: "Bearer sk-test" });
  });

  test("search embeds each query through the API once (repeats are cached), with the snapshot's model", async () => {
    const { services, post } = await serve(dir, { embeddings_api_key: "sk-test", embeddings_model: "another-model" });
    try {
      const before = api.calls.length;
      const first = await post("/api/search", { query: "lending and borrowing", entity_types: ["Protocol"], limit: 5 });
      expect(first.status).toBe(200);
      expect(await categories(post, first.body.results.map((r: { uri: string }) => r.uri))).toEqual(Array(5).fill("Lending"));
      const queryCalls = api.calls.slice(before).filter((c) => c.input[0] !== "dimension probe");
      expect(queryCalls).toHaveLength(1);
      expect(queryCalls[0]).toMatchObject({ model: "toy-embed-1", input: ["lending and borrowing"] });
      await post("/api/search", { query: "lending and borrowing", entity_types: ["Protocol"], limit: 5 });
      expect(api.calls.slice(before).filter((c) => c.input[0] !== "dimension probe")).toHaveLength(1);
    } finally {
      await services.close();
    }
  });

  test("when the API fails, search answers 502 upstream_unavailable while exact names and other routes still work", async () => {
    const { services, post } = await serve(dir, { embeddings_api_key: "sk-test" });
    try {
      expect((await post("/api/search", { query: "oracle price feeds" })).status).toBe(200);
      api.failWith = 503;
      const failed = await post("/api/search", { query: "insurance cover" });
      expect(failed.status).toBe(502);
      expect(failed.body.error.code).toBe("upstream_unavailable");
      expect(failed.body.error.message).toContain("/embeddings");
      expect((await post("/api/sparql", { query: "SELECT (COUNT(*) AS ?n) WHERE { ?s a ckg:Protocol }" })).status).toBe(200);
      api.failWith = undefined;
      expect((await post("/api/search", { query: "insurance cover" })).status).toBe(200);
    } finally {
      api.failWith = undefined;
      await services.close();
    }
  });
});
