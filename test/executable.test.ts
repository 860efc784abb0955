import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkChecksum, checkSbom } from "../scripts/release/check-artifact.ts";
import { embeddedModules } from "../scripts/release/embedded.ts";
import { lockedPackage, ROOT } from "../scripts/release/packages.ts";
import { hostTarget } from "../scripts/release/targets.ts";
import { Webhook } from "standardwebhooks";
import { SignalEvents } from "../src/signals/outbox.ts";
import { openSqliteState } from "../src/store/state-sqlite.ts";
import { builtExecutable, executable } from "./support/executable.ts";
import { startServer } from "./support/server.ts";
import { tempDir } from "./support/temp-dirs.ts";
import { until } from "./support/until.ts";
import { writeToyOnnxModel } from "./support/toy-embeddings.ts";

const work = tempDir("ckg-exe-");

describe("the single executable (npm run build)", () => {
  test("builds dist/ckg", async () => {
    const build = await builtExecutable();
    expect(build.exitCode, build.stderr).toBe(0);
    expect(existsSync(build.binary)).toBe(true);
    expect(statSync(build.binary).mode & 0o111).not.toBe(0); // executable
  }, 300_000);

  test("comes with its SHA-256 and an SBOM of this platform's parts; carries DuckDB compressed, not onnxruntime", async () => {
    const binary = await executable();
    const bytes = await Bun.file(binary).bytes();
    await checkChecksum(binary, bytes);
    const digest = (await Bun.file(`${binary}.sha256`).text()).slice(0, 64);
    const files = await checkSbom(binary, hostTarget(), digest);
    expect(files.map((f) => f.name).sort()).toEqual(["bun", "duckdb.node", hostTarget().duckdbLibrary, "usearch.node"]);
    const names = embeddedModules(bytes).modules.map((m) => m.name);
    expect(names.some((name) => /libduckdb.*\.zst$/.test(name))).toBe(true);
    expect(names.filter((name) => /onnxruntime|\.so$|\.dylib$/.test(name))).toEqual([]);
  }, 300_000);

  test("--version names the version, the commit and the build date", async () => {
    const binary = await executable();
    const head = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
    const line = Bun.spawnSync([binary, "--version"]).stdout.toString().trim();
    expect(line).toMatch(new RegExp(`^ckg \\d+\\.\\d+\\.\\d+ \\(commit ${head}(-dirty)?, built \\d{4}-\\d{2}-\\d{2}\\)$`));
  }, 300_000);

  test("does not carry onnxruntime-node: the ONNX embedder, when configured, says to run from source", async () => {
    const binary = await executable();
    const model = join(work, "onnx-model");
    writeToyOnnxModel(model);
    const run = Bun.spawnSync([binary, "build", "--data-dir", join(work, "onnx-data"), "--scale", "1000", "--embedder", `onnx:${model}`], { cwd: work });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString()).toContain("Run ckg from its source checkout (npm start)");
  }, 300_000);

  test("runs from an empty data directory with nothing else: builds, loads, answers; starts again on its data", async () => {
    const binary = await executable();
    const dir = join(work, "data");
    // Run from an empty working directory, so nothing of the source tree can be picked up.
    // A temporary folder of its own: nothing native may be unpacked there (the serving process once did, before its data directory was known).
    const temporary = join(work, "tmp");
    mkdirSync(temporary, { recursive: true });
    const serve = [binary, "serve", "--data-dir", dir, "--port", "0", "--scale", "5000"];
    const env = { CKG_NATIVE_DIR: "", CKG_WEBHOOK_ALLOW_PRIVATE: "true", TMPDIR: temporary };
    const server = await startServer(serve, env, { cwd: work });
    try {
      await server.waitReady(90_000);
      const sparql = await fetch(`${server.url}/api/sparql`, {
        method: "POST",
        body: JSON.stringify({ query: "SELECT ?n WHERE { <chain/ethereum> schema:name ?n }" }),
      });
      expect(((await sparql.json()) as any).data).toEqual([{ n: "Ethereum" }]);
      // A graph answer (Oxigraph's serializers in the graph process) and the service description
      // in JSON-LD (Oxigraph loaded into the server on first use) work inside the executable.
      const described = await fetch(`${server.url}/sparql?${new URLSearchParams({ query: "DESCRIBE <chain/ethereum>" })}`, { headers: { accept: "text/turtle" } });
      expect(await described.text()).toContain('"Ethereum"');
      const description = await fetch(`${server.url}/sparql`, { headers: { accept: "application/ld+json" } });
      expect(JSON.stringify(await description.json())).toContain("sparql-service-description#Service");
      const explore = await fetch(`${server.url}/api/explore`, { method: "POST", body: JSON.stringify({ entity_name: "Base" }) });
      expect(explore.status).toBe(200);
      expect((await fetch(`${server.url}/api/changes?limit=1`)).status).toBe(200);
      // The search index (usearch's embedded addon) and the learned embedder work inside the executable.
      const search = await fetch(`${server.url}/api/search`, { method: "POST", body: JSON.stringify({ query: "etherium", entity_types: ["Chain"], limit: 3 }) });
      expect(search.status).toBe(200);
      expect(((await search.json()) as any).results[0].name).toBe("Ethereum");
      const meaning = await fetch(`${server.url}/api/search`, { method: "POST", body: JSON.stringify({ query: "lending protocol", limit: 20 }) });
      expect(((await meaning.json()) as any).results).toHaveLength(20);
      // The web console's page and its script were bundled into the executable.
      const page = await (await fetch(`${server.url}/`)).text();
      const script = /<script[^>]+src="([^"]+\.js)"/.exec(page)?.[1];
      expect(script).toBeDefined();
      const bundle = await fetch(`${server.url}${script}`);
      expect(bundle.status).toBe(200);
      expect(await bundle.text()).toContain("/api/search");
      // A webhook goes out from the sender's thread (a worker the executable embeds), signed.
      const hooks: { headers: Record<string, string>; body: string }[] = [];
      const receiver = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: async (request) => {
          hooks.push({ headers: Object.fromEntries(request.headers), body: await request.text() });
          return new Response("ok");
        },
      });
      try {
        const made = await fetch(`${server.url}/api/subscriptions`, {
          method: "POST",
          body: JSON.stringify({ filters: { signals: {} }, webhook_url: `http://127.0.0.1:${receiver.port}/hook`, stream: false }),
        });
        expect(made.status).toBe(200);
        const { secret } = (await made.json()) as { secret: string };
        // An event committed to the state store, as a scan's process commits it: the server hears it by its poll.
        const state = openSqliteState(join(dir, "state.sqlite"));
        const events = new SignalEvents({ scanId: "executable-test", now: new Date().toISOString() });
        events.add("signal.new", { signal_id: "exe-1", signal_type: "stablecoin-depeg", entities: "[]", score: 80, severity: "high", qualification: "qualified", data_as_of: "2026-11-26" });
        await state.transaction(async (tx) => tx.batch(events.writes()));
        await state.close();
        const hook = await until("the webhook at the receiver", 30_000, () => hooks[0], { seen: () => server.stderr().slice(-2000) });
        expect(new Webhook(secret).verify(hook.body, hook.headers)).toMatchObject({ type: "signal.new", data: { signal_id: "exe-1" } });
      } finally {
        receiver.stop(true);
      }
      // DuckDB's native library was unpacked into the data directory's runtime folder, named for
      // its version and platform.
      const duckdb = `duckdb-${(await lockedPackage(hostTarget().duckdbPackage)).version}-${hostTarget().name}`;
      expect(readdirSync(join(dir, "runtime"))).toEqual([duckdb]);
      expect(readdirSync(join(dir, "runtime", duckdb)).sort()).toEqual(["duckdb.node", hostTarget().duckdbLibrary]);
      expect(existsSync(join(temporary, "ckg-native"))).toBe(false);
      expect(server.process.exitCode).toBeNull();
    } finally {
      await server.stop();
    }
    expect(server.process.exitCode).toBe(0);
    // A second start on the data it built: ready again, and SQL reads the series the first start
    // wrote. CI's release check leaves this platform's starts to this test (scripts/release-check.ts).
    const again = await startServer(serve, env, { cwd: work });
    try {
      await again.waitReady(90_000);
      const sql = await fetch(`${again.url}/api/timeseries`, { method: "POST", body: JSON.stringify({ sql_query: "SELECT count(*) > 0 AS rows FROM ts_synthetic_protocol" }) });
      expect(((await sql.json()) as any).data).toEqual([{ rows: true }]);
    } finally {
      await again.stop();
    }
    expect(again.process.exitCode).toBe(0);
  }, 300_000);
});
