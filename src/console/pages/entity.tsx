/**
 * One entity: its attributes with their sources, its relationships by focus category (as links),
 * its time-series as charts over a chosen range, its signals and narratives, and the other
 * entities of the same name. `data-ready` on the page says when all of it has arrived (the browser
 * test and the bench wait for it).
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { type EntityAnalysis, type Explored, type SqlAnswer, api } from "../api.ts";
import { Chart } from "../components/chart.tsx";
import { ErrorBox, Loading, Synthetic } from "../components/notes.tsx";
import { type Route, entityHref, replaceParams } from "../route.ts";
import { SignalList } from "./signals.tsx";

const RANGES: [string, number][] = [
  ["30 days", 30],
  ["90 days", 90],
  ["1 year", 365],
  ["all", 0],
];

interface Series {
  table: string;
  synthetic: boolean;
  answer: SqlAnswer;
}

export function EntityPage({ route }: { route: Route }) {
  const [explored, setExplored] = useState<Explored | null>(null);
  const [analysis, setAnalysis] = useState<EntityAnalysis | null>(null);
  const [series, setSeries] = useState<Series[] | null>(null);
  const [errors, setErrors] = useState<unknown[]>([]);
  const range = Number(route.params.get("range") ?? 90);

  useEffect(() => {
    setExplored(null);
    setAnalysis(null);
    setSeries(null);
    setErrors([]);
    const failed = (e: unknown) => setErrors((list) => [...list, e]);
    const name = route.arg;
    api("POST /api/explore", { body: { entity_name: name } }).then(setExplored, failed);
    api("GET /api/insights/entity/{entity_name}", { params: { entity_name: name, since_hours: 8760 } })
      .then(async (found) => {
        setAnalysis(found);
        const id = found.entity.uri.replace(/^.*\/id\//, "");
        const tables = await Promise.all(
          found.summary.time_series_tables.map(async (table) => ({
            table,
            synthetic: table.startsWith("ts_synthetic_"),
            answer: await api("POST /api/timeseries", { body: { sql_query: `SELECT * FROM ${table} WHERE entity_id = '${id.replaceAll("'", "''")}' ORDER BY date` } }),
          })),
        );
        setSeries(tables);
      })
      .catch((e) => {
        setSeries([]);
        failed(e);
      });
  }, [route.arg]);

  const done = explored !== null && series !== null;
  if (!explored && errors.length > 0) return <ErrorBox error={errors[0]} />;
  if (!explored) return <Loading>Loading {route.arg}…</Loading>;
  const e = explored.entity;
  return (
    <article class="entity" data-ready={done ? "yes" : undefined}>
      <h1>
        {e.name} <span class="muted">{e.labels.join(", ")}</span> <Synthetic when={e.synthetic} />
      </h1>
      <p class="muted">{e.uri}</p>
      {errors.map((error) => (
        <ErrorBox error={error} />
      ))}
      <section aria-labelledby="attributes">
        <h2 id="attributes">Attributes</h2>
        <dl class="attributes">
          {Object.entries(e.attributes).map(([name, values]) => (
            <>
              <dt>{name}</dt>
              {values.map((v) => (
                <dd>
                  {String(v.value)} <span class="source">{v.source}</span>
                </dd>
              ))}
            </>
          ))}
        </dl>
      </section>
      <SeriesCharts series={series} range={range} />
      {analysis ? (
        <section aria-labelledby="signals">
          <h2 id="signals">
            Signals <Synthetic when={analysis.summary.synthetic} />
          </h2>
          <p>{analysis.summary.text}</p>
          <SignalList signals={analysis.signals} />
          {analysis.narratives.length > 0 ? (
            <>
              <h3>Narratives</h3>
              <ul>
                {analysis.narratives.map((n) => (
                  <li>
                    <strong>{n.title}</strong> <span class="badge">{n.actionability}</span> <Synthetic when={n.synthetic} />
                    <p>{n.text}</p>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </section>
      ) : null}
      <section aria-labelledby="relationships">
        <h2 id="relationships">Relationships</h2>
        {Object.entries(explored.relationships)
          .filter(([, block]) => block.count > 0 || (block.figures?.length ?? 0) > 0)
          .map(([category, block]) => (
            <details open={block.count <= 12}>
              <summary>
                {category.replaceAll("_", " ")} ({block.count}
                {block.truncated ? "+" : ""}) <Synthetic when={block.synthetic} />
              </summary>
              <ul class="links">
                {block.items.map((item) => (
                  <li>
                    <span class="muted">{item.direction === "incoming" ? `${item.label} (of this)` : item.label}</span> <a href={entityHref(item.uri)}>{item.name}</a>{" "}
                    <span class="muted">{item.type}</span> <span class="source">{item.source}</span>
                  </li>
                ))}
              </ul>
            </details>
          ))}
      </section>
      <SameName explored={explored} analysis={analysis} />
    </article>
  );
}

function SeriesCharts({ series, range }: { series: Series[] | null; range: number }) {
  if (series === null) return <Loading>Loading time-series…</Loading>;
  if (series.length === 0) return null;
  return (
    <section aria-labelledby="series">
      <h2 id="series">Time-series</h2>
      <fieldset class="range">
        <legend>Range</legend>
        {RANGES.map(([label, days]) => (
          <label>
            <input type="radio" name="range" checked={range === days} onChange={() => replaceParams({ range: days }, true)} /> {label}
          </label>
        ))}
      </fieldset>
      {series.map((s) => (
        <TableChart series={s} range={range} />
      ))}
    </section>
  );
}

function TableChart({ series, range }: { series: Series; range: number }) {
  const numeric = series.answer.columns.filter((c) => c.name !== "entity_id" && c.name !== "date" && /INT|DOUBLE|DECIMAL|FLOAT|REAL|BIGINT/.test(c.type)).map((c) => c.name);
  const [metric, setMetric] = useState(numeric[0] ?? "");
  const rows = useMemo(() => {
    if (range === 0) return series.answer.data;
    const last = series.answer.data.at(-1)?.date as string | undefined;
    if (!last) return [];
    const from = new Date(Date.parse(`${last}T00:00:00Z`) - range * 86_400_000).toISOString().slice(0, 10);
    return series.answer.data.filter((r) => String(r.date) >= from);
  }, [series, range]);
  const days = useMemo(() => rows.map((r) => String(r.date)), [rows]);
  const values = useMemo(() => [{ label: metric, values: rows.map((r) => (typeof r[metric] === "number" ? (r[metric] as number) : null)) }], [rows, metric]);
  if (numeric.length === 0) return null;
  const id = `metric-${series.table}`;
  return (
    <div class="series">
      <h3>
        {series.table} <Synthetic when={series.synthetic} />
      </h3>
      <label for={id}>Metric</label>{" "}
      <select id={id} value={metric} onChange={(e) => setMetric(e.currentTarget.value)}>
        {numeric.map((n) => (
          <option value={n}>{n}</option>
        ))}
      </select>
      <Chart title={`${metric} (${series.table})`} days={days} series={values} />
    </div>
  );
}

function SameName({ explored, analysis }: { explored: Explored; analysis: EntityAnalysis | null }) {
  const others = new Map<string, string>();
  for (const o of explored.other_matches) others.set(o.uri, `${o.name} (${o.type})`);
  for (const o of analysis?.other_entities_named_alike ?? []) if (!others.has(o.uri)) others.set(o.uri, `${o.uri.replace(/^.*\/id\//, "")} (${o.type})`);
  if (others.size === 0) return null;
  return (
    <section aria-labelledby="same-name">
      <h2 id="same-name">Other entities with this name</h2>
      <ul>
        {[...others].map(([uri, label]) => (
          <li>
            <a href={entityHref(uri)}>{label}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}
