/**
 * The signals guide's quality table (docs/guide/signals.md) is the shipped report's (data/quality/quality.json), row for row, and
 * the shipped report is one the catalog accepts, for every type, on the shipped label set.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { qualityTable } from "../../src/backtest/markdown.ts";
import { SHIPPED_LABELS, readLabels } from "../../src/backtest/labels.ts";
import { DETECTORS } from "../../src/signals/detectors/index.ts";
import { qualityReportSchema } from "../../src/signals/quality.ts";

const root = join(import.meta.dir, "..", "..");

test("the signals guide shows the shipped quality report's table", async () => {
  const report = qualityReportSchema.parse(await Bun.file(join(root, "data/quality/quality.json")).json());
  const guide = await Bun.file(join(root, "docs/guide/signals.md")).text();
  expect(guide).toContain(qualityTable(report).join("\n"));
  expect(report.types.map((t) => t.slug)).toEqual(DETECTORS.map((d) => d.slug));
  expect(report.labels.files).toEqual([SHIPPED_LABELS.name]);
  expect(report.labels.count + report.labels.left_out.length).toBe(readLabels([SHIPPED_LABELS]).length);
  // Shipped apart from the data it was measured on.
  expect(report.events.every((e) => e.series === null)).toBe(true);
});
