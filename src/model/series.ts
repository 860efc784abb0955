/**
 * @module model/series
 * What a snapshot's time-series are, whoever made them (the demo generator or an ingest): a published
 * `ts_<source>_<kind>` Parquet table in the snapshot's ts/ folder, and the demo's planted anomalies
 * with their ground truth, kept in ground_truth.json beside the series.
 */
import type { Kind } from "../timeseries/kinds.ts";

/** The snapshot's folder of series Parquet files. */
export const TS_DIR = "ts";
/** The planted anomalies of a demo snapshot (an ingested snapshot carries its base's). */
export const GROUND_TRUTH_FILE = "ground_truth.json";

export interface SeriesTable {
  name: string;
  kind: Kind;
  /** The source part of the table name (ts_<source>_<kind>). */
  source: string;
  /** The provenance source id (as in the graph's named graphs and /api/schema). */
  provenance: string;
  file: string;
  rows: number;
  first_date: string | null;
  last_date: string | null;
}

/** One planted anomaly: the signal it should raise, at which band, on which entities. */
export interface GroundTruth {
  signal_type: string;
  band: "low" | "moderate" | "high";
  entities: string[];
  /** The raw metric the plant sets, in the unit the detector reports. */
  metric: string;
  value: number;
  table: string;
  note: string;
}

export interface SeriesResult {
  tables: SeriesTable[];
  truth: GroundTruth[];
}
