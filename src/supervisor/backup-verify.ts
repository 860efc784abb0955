/**
 * @module supervisor/backup-verify
 * `--verify`: a backup is only as good as its restore. The backup is restored into a scratch
 * directory (backup/restore.ts: every file's SHA-256 checked before and after the copy), opened by
 * this ckg as `ckg serve` opens a data directory (queries only: no scans, ingests or webhook
 * deliveries), and asked one question per engine over the real routes: SQL (DuckDB) counts the
 * graph's entities and names one, SPARQL (the graph store) finds that entity's facts, search finds
 * it by its name; the state store gives a signal and the payment ledger, and every table's row count
 * must be the one the backup recorded. The scratch directory is removed afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../config/config.ts";
import type { Logger } from "../log.ts";
import { PaymentLedger } from "../payments/ledger.ts";
import { querySignals } from "../signals/store.ts";
import { dataDir } from "../store/data-dir.ts";
import { readManifest } from "../store/manifest.ts";
import type { BackupManifest } from "../backup/manifest.ts";
import { restoreBackup } from "../backup/restore.ts";
import { sqliteStateSummary } from "../backup/take.ts";

export interface Check {
  what: string;
  ok: boolean;
  detail: string;
}

export interface Verification {
  ok: boolean;
  manifest: BackupManifest;
  checks: Check[];
  restoreMs: number;
  ms: number;
}

/** Restores `from` into a scratch directory under `scratchParent` and checks it as above; never changes `from`. */
export async function verifyBackup(from: string, config: Config, log: Logger, scratchParent = tmpdir()): Promise<Verification> {
  const started = performance.now();
  const scratch = mkdtempSync(join(scratchParent, "ckg-verify-"));
  const root = join(scratch, "data");
  try {
    const restored = await restoreBackup(from, dataDir(root));
    const { manifest } = restored;
    if (manifest.state.engine !== "sqlite") throw new Error("verifying a PostgreSQL state's backup needs a scratch PostgreSQL database: restore it into one and serve it instead");
    const checks: Check[] = [{ what: "files", ok: true, detail: `${manifest.files.length} files match their SHA-256, in the backup and in the restored copy` }];
    checks.push(tableCounts(manifest, sqliteStateSummary(dataDir(root).stateDb)));
    checks.push(...(await askEngines(root, manifest, config, log)));
    return { ok: checks.every((c) => c.ok), manifest, checks, restoreMs: restored.ms, ms: performance.now() - started };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function tableCounts(manifest: BackupManifest, found: BackupManifest["state"]): Check {
  const wrong = Object.entries(manifest.state.tables).filter(([table, n]) => found.tables[table] !== n);
  const total = Object.values(found.tables).reduce((a, b) => a + b, 0);
  return wrong.length === 0
    ? { what: "state", ok: true, detail: `${Object.keys(found.tables).length} tables, ${total} rows, as recorded (schema version ${found.schema_version})` }
    : { what: "state", ok: false, detail: wrong.map(([t, n]) => `${t}: ${found.tables[t] ?? "missing"} rows, ${n} recorded`).join("; ") };
}

/** The restored directory served (queries only), one question per engine. */
async function askEngines(root: string, manifest: BackupManifest, config: Config, log: Logger): Promise<Check[]> {
  const [{ Supervisor }, { createServer }] = await Promise.all([import("./supervisor.ts"), import("./assemble.ts")]);
  // Payments off (nothing here is sold), no schedules, no scans at start.
  const local: Config = { ...config, data_dir: root, state_url: undefined, pay_to: undefined, pay_to_solana: undefined, prices: undefined, scan_cron: "off", ingest_cron: "off", first_scan: false };
  const services = await Supervisor.open(local, log, { queriesOnly: true });
  try {
    await services.start();
    const app = createServer(services, { baseUrl: "http://127.0.0.1" });
    const ask = async (path: string, body: unknown) => {
      const response = await app.handle(new Request(`http://127.0.0.1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
      const json = (await response.json()) as Record<string, unknown>;
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
      return json;
    };
    const checks: Check[] = [];
    const attempt = async (what: string, run: () => Promise<Check | string>) => {
      try {
        const result = await run();
        checks.push(typeof result === "string" ? { what, ok: true, detail: result } : result);
      } catch (error) {
        checks.push({ what, ok: false, detail: (error as Error).message });
      }
    };
    const snapshot = readManifest(join(root, "snapshots", manifest.snapshot));
    let entity: { id: string; name: string } | undefined;
    await attempt("sql", async () => {
      const count = (await ask("/api/timeseries", { sql_query: "SELECT count(*) AS n FROM graph_entities" })) as { data: { n: number }[] };
      const named = (await ask("/api/timeseries", { sql_query: "SELECT id, name FROM graph_entities WHERE name IS NOT NULL ORDER BY id LIMIT 1" })) as { data: { id: string; name: string }[] };
      entity = named.data[0];
      const n = Number(count.data[0]?.n);
      const recorded = snapshot.graph_tables.find((t) => t.name === "graph_entities")?.rows;
      const ok = n > 0 && entity !== undefined && (recorded === undefined || n === recorded);
      return { what: "sql", ok, detail: `graph_entities holds ${n} rows${recorded === undefined ? "" : ` (${recorded} recorded)`}; the first named: ${entity?.name ?? "none"}` };
    });
    await attempt("sparql", async () => {
      if (!entity) throw new Error("no entity to ask for (the SQL check failed)");
      const uri = `${snapshot.namespaces.entity}${entity.id}`;
      const answer = (await ask("/api/sparql", { query: `SELECT (COUNT(*) AS ?n) WHERE { <${uri}> ?p ?o }` })) as { data: { n: unknown }[] };
      const n = Number(answer.data[0]?.n);
      return { what: "sparql", ok: n > 0, detail: `${n} facts of ${uri}` };
    });
    await attempt("search", async () => {
      if (!entity) throw new Error("no entity to search for (the SQL check failed)");
      const answer = (await ask("/api/search", { query: entity.name, limit: 10 })) as { results: { uri: string }[] };
      const found = answer.results.some((r) => r.uri.endsWith(`/${entity!.id}`));
      return { what: "search", ok: found, detail: `'${entity.name}' ${found ? "found" : "not found"} among ${answer.results.length} results` };
    });
    await attempt("signals", async () => {
      const { signals, total } = await querySignals(services.state, { qualification: "all", since: "0000", limit: 1 });
      const recorded = manifest.state.tables.signals ?? 0;
      return { what: "signals", ok: total === recorded, detail: `${total} signals (${recorded} recorded)${signals[0] ? `; the strongest: ${signals[0].signal_type} ${signals[0].signal_id}` : ""}` };
    });
    await attempt("ledger", async () => {
      const counts = await new PaymentLedger(services.state).counts();
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      const recorded = manifest.state.tables.payments ?? 0;
      return { what: "ledger", ok: total === recorded, detail: `${total} payments (${recorded} recorded): ${JSON.stringify(counts)}` };
    });
    return checks;
  } finally {
    await services.close();
  }
}
