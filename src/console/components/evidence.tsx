/** A signal's evidence opened: its figures, entities and data points charted in their series. */
import { useEffect, useState } from "preact/hooks";
import { type DataPoint, type Signal, api } from "../api.ts";
import { entityHref } from "../route.ts";
import { Chart, type ChartSeries } from "./chart.tsx";
import { ErrorBox } from "./notes.tsx";

/** Up to this many of a signal's series are charted around its data points. */
const MAX_SERIES = 3;
const DAYS_BEFORE = 30;

interface PointSeries {
  title: string;
  days: string[];
  series: ChartSeries[];
}

/**
 * A signal's evidence: its figures, the entities it names, and each dated data point charted in
 * its own series over the month before it (read from the published table it names), the point
 * itself marked.
 */
export function Evidence({ signal }: { signal: Signal }) {
  const [charts, setCharts] = useState<PointSeries[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const points = signal.evidence.data_points.filter((p): p is DataPoint & { date: string; value: number } => p.date !== null && typeof p.value === "number" && p.table.startsWith("ts_"));
    const distinct = [...new Map(points.map((p) => [`${p.table} ${p.entity} ${p.column}`, p])).values()].slice(0, MAX_SERIES);
    Promise.all(
      distinct.map(async (p) => {
        const from = new Date(Date.parse(`${p.date}T00:00:00Z`) - DAYS_BEFORE * 86_400_000).toISOString().slice(0, 10);
        const column = `"${p.column.replaceAll('"', '""')}"`;
        const answer = await api("POST /api/timeseries", {
          body: {
            sql_query: `SELECT CAST(date AS VARCHAR) AS day, ${column} AS value FROM ${p.table} WHERE entity_id = '${p.entity.replaceAll("'", "''")}' AND date BETWEEN DATE '${from}' AND DATE '${p.date}' ORDER BY date`,
          },
        });
        const days = answer.data.map((r) => String(r.day));
        return {
          title: `${p.column} of ${p.entity} (${p.table})`,
          days,
          series: [
            { label: p.column, values: answer.data.map((r) => (typeof r.value === "number" ? r.value : null)) },
            { label: "data point", values: days.map((d) => (d === p.date ? p.value : null)) },
          ],
        };
      }),
    ).then(setCharts, setError);
  }, [signal]);
  return (
    <div class="evidence">
      <p>
        {`${signal.evidence.metric}: ${signal.evidence.value} ${signal.evidence.unit}`} · first found {signal.created_at} · last seen{" "}
        {signal.seen_at}
      </p>
      <p>
        Entities:{" "}
        {signal.entities.map((uri, i) => (
          <>
            {i > 0 ? ", " : ""}
            {uri.startsWith("https://") ? <a href={entityHref(uri)}>{uri.replace(/^.*\/id\//, "")}</a> : uri}
          </>
        ))}
      </p>
      <ErrorBox error={error} />
      {charts?.map((c) => (c.days.length > 0 ? <Chart title={c.title} days={c.days} series={c.series} height={180} /> : null))}
      <details>
        <summary>Evidence as JSON</summary>
        <pre>{JSON.stringify(signal.evidence, null, 2)}</pre>
      </details>
    </div>
  );
}
