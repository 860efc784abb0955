/**
 * @module cli/backtest
 * `ckg backtest`: replays a window of days through the real detectors, each day reading only what
 * was known by then, and grades each signal type against labelled real events (data/events/).
 * History comes from the data directory's live snapshot (after `ckg ingest`, its backfill) or,
 * with --history, from the recorded market history (`../shared/real-history/`) over the data
 * directory's real entities. Prints the Markdown report (or JSON); --out writes both files;
 * --publish makes it the report the catalog and every signal answer carry.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import { EXIT } from "../exit-codes.ts";
import type { Command } from "./command.ts";
import { UsageError } from "./command.ts";

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const backtest: Command = {
  name: "backtest",
  summary: "Replay a window of days through the signal detectors (no look-ahead, nothing served) and grade each type against labelled real events.",
  usage: "[options]",
  settings: COMMAND_SETTINGS.backtest,
  options: {
    from: { type: "string", help: "first day, YYYY-MM-DD (default: 364 days before --to)" },
    to: { type: "string", help: "last day, YYYY-MM-DD (default: the snapshot's as-of day; required with --history)" },
    history: { type: "string", help: "replay the recorded history in this folder (../shared/real-history) over the data directory's real entities" },
    labels: { type: "string", help: "comma-separated label files, JSON Lines (default: the shipped data/events/real-incidents.jsonl)" },
    horizon: { type: "string", help: "days before an incident a warning counts, and after an alarm a label confirms it (default 14)" },
    types: { type: "string", help: "comma-separated signal types (default: all 28)" },
    out: { type: "string", help: "write quality.json and quality.md to this folder" },
    publish: { type: "boolean", help: "make this report the one the catalog and signal answers carry (data directory's quality.json)" },
    json: { type: "boolean", help: "print the report as JSON instead of Markdown" },
    "without-series": { type: "boolean", help: "leave out each event's series (a report shipped apart from the data it was measured on, like data/quality/)" },
  },
  async run({ config, options }) {
    const [{ createLogger }, { dataDir, liveSnapshotId, snapshotPath }, { readManifest }, { detectorsNamed, runBacktest }, { labelFiles, SHIPPED_LABELS }, { qualityMarkdown }, { qualityPath }, { addDays }, fs, path, { default: progress }] =
      await Promise.all([
        import("../log.ts"),
        import("../store/data-dir.ts"),
        import("../store/manifest.ts"),
        import("../backtest/run.ts"),
        import("../backtest/labels.ts"),
        import("../backtest/markdown.ts"),
        import("../signals/quality.ts"),
        import("../time.ts"),
        import("node:fs"),
        import("node:path"),
        import("cli-progress"),
      ]);
    const log = createLogger(config.log_level, 2);
    for (const name of ["from", "to"] as const) {
      const value = options[name];
      if (value !== undefined && (typeof value !== "string" || !DAY.test(value) || Number.isNaN(Date.parse(value)))) throw new UsageError(`--${name} must be a date, YYYY-MM-DD.`);
    }
    // Kept as given: the report names the folder the way the person named it.
    const history = typeof options.history === "string" ? options.history : undefined;
    if (history && !fs.existsSync(history)) throw new UsageError(`--history: no folder ${path.resolve(history)}.`);
    if (history && options.to === undefined) throw new UsageError("--history needs --to (and --from): the recorded history has no as-of day of its own.");
    const horizon = options.horizon === undefined ? undefined : Number(options.horizon);
    if (horizon !== undefined && (!Number.isInteger(horizon) || horizon < 1 || horizon > 365)) throw new UsageError("--horizon must be a whole number of days from 1 to 365.");
    const types = typeof options.types === "string" ? options.types.split(",").map((t) => t.trim()).filter(Boolean) : undefined;
    const chosen = types ? detectorsNamed(types) : undefined;
    const unknown = chosen?.unknown ?? [];
    if (unknown.length > 0) throw new UsageError(`unknown signal type${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}.`);

    const dir = dataDir(config.data_dir);
    const to = (options.to as string | undefined) ?? readManifest(snapshotPath(dir, liveSnapshotId(dir))).as_of.slice(0, 10);
    const from = (options.from as string | undefined) ?? addDays(to, -364);
    const files = typeof options.labels === "string" ? labelFiles(options.labels.split(",").map((f) => f.trim()).filter(Boolean)) : [SHIPPED_LABELS];
    if (history) {
      // How the recorded history becomes ts_* tables, said before the run (recorded-history.ts).
      const { HISTORY_MAPPING } = await import("../backtest/recorded-history.ts");
      process.stderr.write(`recorded history ${history}:\n${HISTORY_MAPPING.map((m) => `  ${m.table}.${m.columns} <- ${m.file} (dates: ${m.dates})`).join("\n")}\n`);
    }
    const tty = process.stderr.isTTY && !options.json;
    const bar = tty ? new progress.SingleBar({ format: "backtest [{bar}] {value}/{total} days {day} ({found} found)", stream: process.stderr }, progress.Presets.shades_classic) : undefined;
    const { report: full } = await runBacktest({
      source: history ? { kind: "history", root: history, base: dir } : { kind: "snapshot", dir },
      from,
      to,
      labelFiles: files,
      // The shipped set names real entities a world may lack; a person's own labels must all be there.
      lenientEntities: options.labels === undefined,
      horizon,
      detectors: chosen?.detectors,
      onDay(day, index, total, found) {
        if (index === 0) bar?.start(total, 0, { day, found });
        if (bar) bar.update(index + 1, { day, found });
        else if (index % 30 === 0 || index === total - 1) log.info({ day, found, done: index + 1, total }, "backtest day");
      },
    }).catch((error: Error) => {
      // A bad label, window or history folder is the person's input: a usage error, said plainly.
      throw ["LabelError", "WindowError", "HistoryError"].includes(error.name) ? new UsageError(error.message) : error;
    });
    bar?.stop();
    const report = options["without-series"] ? { ...full, events: full.events.map((e) => ({ ...e, series: null })) } : full;
    const markdown = qualityMarkdown(report);
    const json = `${JSON.stringify(report, null, 1)}\n`;
    if (typeof options.out === "string") {
      fs.mkdirSync(options.out, { recursive: true });
      fs.writeFileSync(path.join(options.out, "quality.json"), json);
      fs.writeFileSync(path.join(options.out, "quality.md"), markdown);
    }
    if (options.publish) fs.writeFileSync(qualityPath(dir.root), json);
    process.stdout.write(options.json ? json : markdown);
    return EXIT.ok;
  },
};
