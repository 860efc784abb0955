/**
 * @module cli/ingest
 * `ckg ingest`: fetch from the data providers and publish a new snapshot beside the live one (the
 * running server switches to it). `ckg import <dir>`: the same from provider answers saved to disk
 * (the layout of ingest/run/raw: <dir>/<provider>/<request>.json), for machines with no network.
 * Into a data directory with no snapshot yet, both first build the base world (the reference
 * entities and the demo fill, which `--without-demo` then leaves out), so a first real-data step
 * is one command. The runs are ingest/ingest-data-dir.ts's.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { EXIT } from "../exit-codes.ts";
import type { Config } from "../config/config.ts";
import { PROVIDERS, PROVIDER_IDS, type ProviderId, parseProviderList } from "../config/providers/index.ts";
import type { IngestOutcome, IngestReport, IngestRequest } from "../ingest/ingest-data-dir.ts";
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
    const ids = providersOf(typeof options.providers === "string" ? options.providers : config.ingest_providers);
    if (ids.length === 0) throw new UsageError("--providers names no provider.");
    const trigger = typeof options.trigger === "string" ? options.trigger : "manual";
    return runIngest(config, options.json === true, { source: { kind: "fetch", providers: ids }, withoutDemo: options["without-demo"] === true, trigger });
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
    const [{ existsSync, statSync }, { resolve }, { providersSavedIn }] = await Promise.all([import("node:fs"), import("node:path"), import("../ingest/ingest-data-dir.ts")]);
    const from = positionals[0];
    if (!from || positionals.length > 1) throw new UsageError("give one folder of saved provider answers: ckg import <dir>");
    if (!existsSync(from) || !statSync(from).isDirectory()) throw new UsageError(`${from} is not a folder`);
    const ids = providersOf(typeof options.providers === "string" ? options.providers : providersSavedIn(from).join(","));
    if (ids.length === 0) throw new UsageError(`${from} holds no provider folder (${PROVIDER_IDS.join(", ")})`);
    const withoutDemo = options["without-demo"] === true;
    return runIngest(config, options.json === true, { source: { kind: "import", from: resolve(from), providers: ids }, withoutDemo, trigger: "import" });
  },
};

/**
 * An ingest (or import) through ingest/ingest-data-dir.ts, with progress bars on a terminal, then its
 * report printed; exits 1 when it published nothing (the live snapshot is unchanged).
 */
async function runIngest(config: Config, json: boolean, request: IngestRequest): Promise<number> {
  const [{ createLogger }, { ingestDataDir }, { default: progress }] = await Promise.all([import("../log.ts"), import("../ingest/ingest-data-dir.ts"), import("cli-progress")]);
  const log = createLogger(config.log_level, 2);
  const tty = process.stderr.isTTY && !json;
  const bars = tty ? new progress.MultiBar({ format: "{provider} {step} [{bar}] {value}/{total}", stream: process.stderr, hideCursor: true }, progress.Presets.shades_classic) : undefined;
  const byProvider = new Map<string, ReturnType<NonNullable<typeof bars>["create"]>>();
  let outcome: IngestOutcome;
  try {
    outcome = await ingestDataDir(config, request, {
      log,
      onBaseBuilt: (base) => {
        if (!json) console.log(`base world ${base.id} built in ${(base.durationMs / 1000).toFixed(1)} s${request.withoutDemo ? " (its demo data is left out of the import)" : ""}`);
      },
      onProgress: (event) => {
        if (!bars) return;
        let bar = byProvider.get(event.provider);
        if (!bar) byProvider.set(event.provider, (bar = bars.create(event.total, 0, { provider: event.provider.padEnd(9), step: event.step })));
        bar.setTotal(event.total);
        bar.update(event.done, { step: event.step });
      },
    });
  } finally {
    bars?.stop();
  }
  if (!outcome.published) {
    console.error(`ingest failed: ${outcome.error.message}\nThe live snapshot is unchanged.`);
    return EXIT.failure;
  }
  printReport(outcome.report, json);
  return EXIT.ok;
}

/** The ingest's report: whole as JSON, or a line per provider and one for resolution. */
function printReport(report: IngestReport, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(report));
    return;
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
}
