/**
 * @module cli/ingest
 * `ckg ingest`: fetch from the data providers and publish a new snapshot beside the live one (the
 * running server switches to it). `ckg import <dir>`: the same from provider answers saved to disk
 * (the layout of ingest/run/raw: <dir>/<provider>/<request>.json), for machines with no network.
 * Into a data directory with no snapshot yet, both first build the base world (the reference
 * entities and the demo fill, which `--without-demo` then leaves out), so a first real-data step
 * is one command.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { EXIT } from "../exit-codes.ts";
import type { Config } from "../config/config.ts";
import { PROVIDERS, PROVIDER_IDS, type ProviderId, parseProviderList } from "../config/providers/index.ts";
import type { Command } from "./command.ts";
import { UsageError } from "./command.ts";

/** The providers a --providers list (or the setting it stands in for) names; unknown names are a usage error naming the known ones. */
function providersOf(list: string): ProviderId[] {
  const { ids, unknown } = parseProviderList(list);
  if (unknown.length > 0) throw new UsageError(`unknown provider${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")} (known: ${PROVIDER_IDS.join(", ")})`);
  return ids;
}

export const ingest: Command = {
  name: "ingest",
  summary:
    `Fetch real data from the providers (${PROVIDERS.map((p) => p.title).join(", ")}), resolve it onto the live snapshot's entities ` +
    "and publish the result as a new snapshot; a running server switches to it without a restart. Resumes an interrupted run.",
  usage: "[options]",
  settings: COMMAND_SETTINGS.ingest,
  options: {
    providers: { type: "string", help: "comma-separated providers to read (default: the ingest_providers setting)" },
    "without-demo": { type: "boolean", help: "leave the generated demo data out of the new snapshot (real data only)" },
    json: { type: "boolean", help: "print the ingest report as JSON" },
    trigger: { type: "string", help: "why this ingest runs, recorded with it (default manual; the server says schedule or catch-up)" },
  },
  async run({ config, options }) {
    const { providerConfig } = await import("../ingest/providers/index.ts");
    const ids = providersOf(typeof options.providers === "string" ? options.providers : config.ingest_providers);
    if (ids.length === 0) throw new UsageError("--providers names no provider.");
    const trigger = typeof options.trigger === "string" ? options.trigger : "manual";
    return runIngest(config, options.json === true, options["without-demo"] === true, trigger, {
      kind: "fetch",
      providers: new Map(ids.map((id) => [id, providerConfig(config, id)])),
      detailLimit: config.ingest_detail_limit,
    });
  },
};

export const importCommand: Command = {
  name: "import",
  summary: "Build a snapshot from provider answers saved to disk (<dir>/<provider>/...json, as `ckg ingest` saves them), with the same parsers; no network.",
  usage: "<dir> [options]",
  settings: COMMAND_SETTINGS.import,
  options: {
    providers: { type: "string", help: "comma-separated providers to import (default: every provider folder found in <dir>)" },
    "without-demo": { type: "boolean", help: "leave the generated demo data out of the new snapshot (real data only)" },
    json: { type: "boolean", help: "print the ingest report as JSON" },
  },
  async run({ config, positionals, options }) {
    const [{ existsSync, statSync }, { resolve }, { RawStore }] = await Promise.all([import("node:fs"), import("node:path"), import("../ingest/raw-store.ts")]);
    const from = positionals[0];
    if (!from || positionals.length > 1) throw new UsageError("give one folder of saved provider answers: ckg import <dir>");
    if (!existsSync(from) || !statSync(from).isDirectory()) throw new UsageError(`${from} is not a folder`);
    const ids = providersOf(typeof options.providers === "string" ? options.providers : new RawStore(from).providers().join(","));
    if (ids.length === 0) throw new UsageError(`${from} holds no provider folder (${PROVIDER_IDS.join(", ")})`);
    return runIngest(config, options.json === true, options["without-demo"] === true, "import", { kind: "import", from: resolve(from), providers: ids });
  },
};

/**
 * An ingest (or import), recorded in the ingests table while it runs (store/runs.ts): a run whose
 * process dies stays visible as interrupted, and a server redoes it at its next start.
 */
async function runIngest(config: Config, json: boolean, withoutDemo: boolean, trigger: string, source: import("../ingest/options.ts").IngestSource): Promise<number> {
  const [{ dataDir, ensureDataDir }, { openState }, { startIngest, finishIngest }] = await Promise.all([
    import("../store/data-dir.ts"),
    import("../store/open-state.ts"),
    import("../store/runs.ts"),
  ]);
  const dir = dataDir(config.data_dir);
  ensureDataDir(dir);
  const state = await openState(config, dir.stateDb);
  const id = await startIngest(state, trigger);
  try {
    const published = await ingestAndReport(config, json, withoutDemo, source);
    await finishIngest(state, id, published ? { status: "ok", snapshotId: published } : { status: "failed", error: "see the ingest's log" });
    return published ? EXIT.ok : EXIT.failure;
  } catch (error) {
    await finishIngest(state, id, { status: "failed", error: (error as Error).message });
    throw error;
  } finally {
    await state.close();
  }
}

/** Runs the ingest and prints its report; the published snapshot's id, or undefined when it failed (the live snapshot is unchanged). */
async function ingestAndReport(config: Config, json: boolean, withoutDemo: boolean, source: import("../ingest/options.ts").IngestSource): Promise<string | undefined> {
  const [{ createLogger }, { currentSnapshotId, dataDir }, { ingest: run }, { IngestError }, { configuredEmbedder, embedderModel }, { default: progress }, { buildSnapshot }] =
    await Promise.all([
      import("../log.ts"),
      import("../store/data-dir.ts"),
      import("../ingest/ingest.ts"),
      import("../ingest/options.ts"),
      import("../search/embedders.ts"),
      import("cli-progress"),
      import("../snapshot/build.ts"),
    ]);
  const log = createLogger(config.log_level, 2);
  const dir = dataDir(config.data_dir);
  const sign = (await import("../snapshot/signature.ts")).snapshotSigner(config.snapshot_signing_key);
  if (!currentSnapshotId(dir)) {
    log.info({ data_dir: dir.root }, "no snapshot yet: building the base world first");
    const embedder = await configuredEmbedder(config);
    const base = await buildSnapshot({ dir, scale: config.scale, seed: config.seed, ontologyNs: config.ontology_ns, embedder, embedderModel: embedderModel(config), sign, log });
    if (!json) console.log(`base world ${base.id} built in ${(base.manifest.build.duration_ms / 1000).toFixed(1)} s${withoutDemo ? " (its demo data is left out of the import)" : ""}`);
  }
  const tty = process.stderr.isTTY && !json;
  const bars = tty ? new progress.MultiBar({ format: "{provider} {step} [{bar}] {value}/{total}", stream: process.stderr, hideCursor: true }, progress.Presets.shades_classic) : undefined;
  const byProvider = new Map<string, ReturnType<NonNullable<typeof bars>["create"]>>();
  try {
    const report = await run({
      dir,
      source,
      log,
      embedder: await configuredEmbedder(config),
      embedderModel: embedderModel(config),
      withoutDemo,
      sign,
      onProgress: (event) => {
        if (!bars) return;
        let bar = byProvider.get(event.provider);
        if (!bar) byProvider.set(event.provider, (bar = bars.create(event.total, 0, { provider: event.provider.padEnd(9), step: event.step })));
        bar.setTotal(event.total);
        bar.update(event.done, { step: event.step });
      },
    });
    bars?.stop();
    if (json) {
      console.log(JSON.stringify(report));
      return report.snapshot_id;
    }
    console.log(`snapshot ${report.snapshot_id} published in ${(report.duration_ms / 1000).toFixed(1)} s (on top of ${report.base_snapshot_id})`);
    for (const p of report.providers) {
      console.log(
        `  ${p.id.padEnd(10)} ${String(p.records).padStart(7)} records ${String(p.rows).padStart(8)} rows ${String(p.rejected).padStart(5)} rejected ` +
          `${String(p.requests).padStart(6)} requests (${p.retries} retries, ${p.rate_limited} rate-limited) ${p.records_per_second}/s, latest day ${p.latest_day ?? "-"}`,
      );
    }
    const r = report.resolution;
    console.log(
      `  entities: ${r.entities_created} created, ${r.entities_matched} matched (${r.matched_by_name} by name, ${r.matched_by_symbol} stablecoins by ticker, ${r.matched_native_coins} native coins), ${r.synthetic_replaced} synthetic replaced; ` +
        `${r.chains_by_former_name} chains by a former name, ${r.relations_unresolved} links and ${r.rows_unresolved} rows unresolved; ` +
        `${report.conflicts} conflicts kept; changes: ${report.changes.CREATE} CREATE, ${report.changes.UPDATE} UPDATE`,
    );
    return report.snapshot_id;
  } catch (error) {
    bars?.stop();
    if (error instanceof IngestError) {
      console.error(`ingest failed: ${error.message}\nThe live snapshot is unchanged.`);
      return undefined;
    }
    throw error;
  }
}
