/**
 * @module backtest/labels
 * Labelled real events (`data/events/*.jsonl`): one JSON object a line naming an entity of the
 * graph, a UTC day, a kind of event and the source that establishes it. A label's source is never
 * the series the detectors read (a depeg dated from DefiLlama's prices would grade the detector
 * against itself): depegs come from CoinMarketCap's daily lows or Binance's minute closes, supply
 * runs from a supply series the detector does not read, exploits from DefiLlama's hacks list.
 *
 * A `quiet` label is a control: over `day`..`until` the listed types must not fire on the entity
 * (BUSD's wind-down in February 2023 held its peg).
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import shippedText from "../../data/events/real-incidents.jsonl" with { type: "text" };

export const EVENT_KINDS = ["exploit", "depeg", "supply-run", "tvl-collapse", "price-collapse", "exchange-collapse", "unlock-cliff", "quiet"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a UTC day, YYYY-MM-DD").refine((d) => {
  const time = Date.parse(`${d}T00:00:00Z`);
  // A round trip, since Date.parse rolls 2023-02-30 over to March.
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === d;
}, "not a calendar day");

export const labelSchema = z
  .object({
    /** Stable id of the label, unique across the set. */
    id: z.string().min(1),
    /** Graph id of the entity (`token/usdc-usdc`, `chain/solana`). */
    entity: z.string().regex(/^[a-z-]+\/\S+$/, "a graph id such as token/usdc-usdc"),
    day,
    kind: z.enum(EVENT_KINDS),
    /** What establishes the day: the provider, the file or page and the figure. */
    source: z.string().min(10),
    /**
     * False when the only source found is the series the detectors read (FRAX's March 2023 depeg:
     * the recorded history has no other FRAX price): shown in the report, never counted.
     */
    independent: z.boolean().default(true),
    /** One line for people: what happened. */
    note: z.string().optional(),
    /** Controls only: the last day of the quiet window. */
    until: day.optional(),
    /** Controls only: the types that must stay quiet. */
    types: z.array(z.string()).optional(),
  })
  .strict()
  .superRefine((label, ctx) => {
    if (label.kind === "quiet" && (!label.until || !label.types?.length)) ctx.addIssue({ code: "custom", message: "a quiet (control) label needs `until` and `types`" });
    if (label.kind !== "quiet" && (label.until || label.types)) ctx.addIssue({ code: "custom", message: "`until` and `types` belong to quiet (control) labels only" });
    if (label.until && label.until < label.day) ctx.addIssue({ code: "custom", message: "`until` is before `day`" });
  });
export type Label = z.infer<typeof labelSchema>;

export class LabelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LabelError";
  }
}

/** The label set shipped with ckg (embedded in the executable). */
export const SHIPPED_LABELS: LabelFile = { name: "data/events/real-incidents.jsonl", text: shippedText };

export interface LabelFile {
  name: string;
  text: string;
}

/** Label files from disk (a file that cannot be read is a LabelError naming it). */
export function labelFiles(paths: readonly string[]): LabelFile[] {
  return paths.map((path) => {
    try {
      return { name: path, text: readFileSync(path, "utf8") };
    } catch (error) {
      throw new LabelError(`cannot read the label file ${path}: ${(error as Error).message}`);
    }
  });
}

/** Parses label files; the first problem is thrown with its file and line, before any work. */
export function readLabels(files: readonly LabelFile[]): Label[] {
  const labels: Label[] = [];
  const ids = new Map<string, string>();
  for (const { name: file, text } of files) {
    for (const [index, raw] of text.split("\n").entries()) {
      const line = raw.trim();
      if (line === "" || line.startsWith("//")) continue;
      const where = `${file}:${index + 1}`;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new LabelError(`${where}: not JSON (${(error as Error).message})`);
      }
      const parsed = labelSchema.safeParse(value);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new LabelError(`${where}: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
      }
      const seen = ids.get(parsed.data.id);
      if (seen) throw new LabelError(`${where}: the id ${parsed.data.id} is already used at ${seen}`);
      ids.set(parsed.data.id, where);
      labels.push(parsed.data);
    }
  }
  if (labels.length === 0) throw new LabelError(`no labels in ${files.map((f) => f.name).join(", ")}`);
  return labels;
}

/** Throws when a label names an entity the world does not have (every unknown one at once). */
export function checkLabelEntities(labels: readonly Label[], known: (id: string) => boolean): void {
  const unknown = labels.filter((l) => !known(l.entity));
  if (unknown.length > 0) {
    throw new LabelError(`label${unknown.length > 1 ? "s" : ""} naming an entity this world does not have: ${unknown.map((l) => `${l.id} (${l.entity})`).join(", ")}`);
  }
}
