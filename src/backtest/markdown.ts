/**
 * @module backtest/markdown
 * The quality report as Markdown: the per-type table (what docs/guide/signals.md shows), the labelled events
 * with the types that fired around them, and the controls.
 */
import type { QualityReport } from "../signals/quality.ts";

const num = (value: number | null | undefined, digits = 2) => (value === null || value === undefined ? "–" : String(Math.round(value * 10 ** digits) / 10 ** digits));

/** The per-type table (docs/guide/signals.md shows the shipped report's). */
export function qualityTable(report: QualityReport): string[] {
  const lines = [
    "| type | measured | events caught | median delay (d) | incidents preceded | median lead (d) | episodes | alarms / 100 entity-months | precision |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const t of report.types) {
    const caught = t.detection ? `${t.detection.caught} / ${t.detection.events}` : "–";
    const preceded = t.warning ? `${t.warning.preceded} / ${t.warning.incidents}` : "–";
    lines.push(
      `| \`${t.slug}\` | ${t.measured ? "measured" : `unmeasured: ${t.reason}`} | ${caught} | ${num(t.detection?.median_delay_days)} | ${preceded} | ${num(t.warning?.median_lead_days)} | ${t.alarms.episodes} | ${num(t.alarms.per_100_entity_months)} | ${num(t.alarms.precision)} |`,
    );
  }
  return lines;
}

export function qualityMarkdown(report: QualityReport): string {
  const lines = [
    `# Signal quality: ${report.window.from} to ${report.window.to}`,
    "",
    `World: ${report.world}. Labels: ${report.labels.count} in ${report.labels.files.join(", ")} (${report.labels.in_window} in the window` +
      `${report.labels.left_out.length > 0 ? `; left out, their entity not in this world: ${report.labels.left_out.join(", ")}` : ""}). ` +
      `Horizon ${report.horizon_days} days; detection window ${report.detect_window_days} days; episodes bridge gaps up to ${report.episode_gap_days} days. ` +
      `Replayed ${report.speed.days} days at ${report.speed.days_per_minute} days a minute (median ${report.speed.median_ms_per_day} ms a day).`,
    "",
    ...qualityTable(report),
  ];
  lines.push("", "## Labelled events", "", "| day | entity | kind | counted | types that fired (first day) |", "|---|---|---|---|---|");
  for (const e of report.events) {
    const counted = !e.in_window ? "no: outside the window" : !e.independent ? "no: not independent" : "yes";
    const fired = e.fired.map((f) => `${f.type} (${f.screened_days[0] ?? `${f.days[0]}, unscreened`})`).join(", ") || "none";
    lines.push(`| ${e.day} | ${e.name} (\`${e.entity}\`) | ${e.kind} | ${counted} | ${fired} |`);
  }
  if (report.controls.length > 0) {
    lines.push("", "## Controls (must stay quiet)", "", "| entity | days | types | held |", "|---|---|---|---|");
    for (const c of report.controls) lines.push(`| \`${c.entity}\` | ${c.from}..${c.until} | ${c.types.join(", ")} | ${!c.in_window ? "not replayed: outside the window" : c.held ? "yes" : `no: ${c.fired.map((f) => `${f.type} ${f.day}`).join(", ")}`} |`);
  }
  return `${lines.join("\n")}\n`;
}
