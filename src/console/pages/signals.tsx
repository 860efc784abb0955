/**
 * The signals dashboard: counts by type, severity and qualification over the days, filters kept in
 * the address, and each signal's evidence with its data points charted.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { type DataPoint, type Qualification, type Signal, type SignalListing, api, debounced } from "../api.ts";
import { Chart, type ChartSeries } from "../components/chart.tsx";
import { ErrorBox, Loading, Synthetic } from "../components/notes.tsx";
import { type Route, entityHref, replaceParams } from "../route.ts";

const QUALIFICATIONS = ["all", "qualified", "screened", "pending", "rejected"];
const SEVERITIES = ["high", "moderate", "low"] as const;

export function SignalsPage({ route }: { route: Route }) {
  const [types, setTypes] = useState<string[]>([]);
  const [type, setType] = useState(route.params.get("type") ?? "");
  const [qualification, setQualification] = useState(route.params.get("qualification") ?? "all");
  const [entity, setEntity] = useState(route.params.get("entity") ?? "");
  const [days, setDays] = useState(Number(route.params.get("days") ?? 30));
  const [listing, setListing] = useState<SignalListing | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    api("GET /api/signals/catalog").then((c) => setTypes(c.signal_types.map((t) => t.slug)), setError);
  }, []);
  useEffect(() => {
    replaceParams({ type, qualification, entity, days });
    setListing(null);
    return debounced(
      (signal) =>
        api("GET /api/insights/signals", {
          params: { signal_type: type || undefined, qualification: qualification as Qualification, entity: entity || undefined, since_hours: days * 24, limit: 500 },
          signal,
        }),
      (found, failure) => {
        if (found) setListing(found);
        setError(failure);
      },
      200,
    );
  }, [type, qualification, entity, days]);

  return (
    <section>
      <h1>Signals</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label for="signal-type">Type</label>
        <select id="signal-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          <option value="">all types</option>
          {types.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
        <label for="qualification">Qualification</label>
        <select id="qualification" value={qualification} onChange={(e) => setQualification(e.currentTarget.value)}>
          {QUALIFICATIONS.map((q) => (
            <option value={q}>{q}</option>
          ))}
        </select>
        <label for="entity">Entity</label>
        <input id="entity" value={entity} placeholder="name or URI" onChange={(e) => setEntity(e.currentTarget.value)} />
        <label for="days">Days</label>
        <select id="days" value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {[1, 3, 7, 30, 90, 365].map((d) => (
            <option value={String(d)}>{d}</option>
          ))}
        </select>
      </form>
      <ErrorBox error={error} />
      {listing ? <Dashboard listing={listing} /> : error ? null : <Loading />}
    </section>
  );
}

function Dashboard({ listing }: { listing: SignalListing }) {
  const byDay = useMemo(() => {
    // The day of the data a signal was found on (its evidence window's end), not the wall-clock scan time.
    const dayOf = (s: Signal) => s.evidence.window.to;
    const days = [...new Set(listing.signals.map(dayOf))].sort();
    const count = (pick: (s: Signal) => boolean) => days.map((d) => listing.signals.filter((s) => dayOf(s) === d && pick(s)).length);
    return {
      days,
      severity: SEVERITIES.map((sev) => ({ label: sev, values: count((s) => s.severity === sev) })),
      qualification: ["qualified", "screened", "pending", "rejected"].map((q) => ({ label: q, values: count((s) => s.qualification === q) })),
    };
  }, [listing]);
  const types = Object.entries(listing.by_type).sort((a, b) => b[1] - a[1]);
  return (
    <div class="dashboard" data-ready="yes">
      <p role="status">
        {listing.total.toLocaleString()} signal{listing.total === 1 ? "" : "s"} match; the strongest {listing.signals.length} are shown.
      </p>
      <div class="grid">
        <section aria-labelledby="by-type">
          <h2 id="by-type">By type</h2>
          <table class="counts">
            <tbody>
              {types.map(([t, n]) => (
                <tr>
                  <th scope="row">{t}</th>
                  <td>{n.toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        {byDay.days.length > 0 ? (
          <section aria-labelledby="over-days">
            <h2 id="over-days">Over the days of data (the {listing.signals.length} shown)</h2>
            <table class="counts">
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {[...byDay.severity, ...byDay.qualification].map((s) => (
                    <th scope="col">{s.label}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {byDay.days.map((day, i) => (
                  <tr>
                    <th scope="row">{day}</th>
                    {[...byDay.severity, ...byDay.qualification].map((s) => (
                      <td>{s.values[i]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
            {byDay.days.length > 1 ? (
              <>
                <Chart title="by severity" days={byDay.days} series={byDay.severity} height={160} />
                <Chart title="by qualification" days={byDay.days} series={byDay.qualification} height={160} />
              </>
            ) : null}
          </section>
        ) : null}
      </div>
      <h2>Strongest</h2>
      <SignalList signals={listing.signals} />
    </div>
  );
}

/** Signals, strongest first; each opens to its evidence, its data points charted in their series. */
export function SignalList({ signals }: { signals: Signal[] }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  if (signals.length === 0) return <p>No signals.</p>;
  const toggle = (id: string, isOpen: boolean) =>
    setOpen((now) => {
      const next = new Set(now);
      if (isOpen) next.add(id);
      else next.delete(id);
      return next;
    });
  return (
    <ul class="signals">
      {signals.map((s) => (
        <li key={s.signal_id}>
          <details onToggle={(e) => toggle(s.signal_id, e.currentTarget.open)}>
            <summary>
              <span class={`severity ${s.severity}`}>{s.severity}</span> <strong>{s.signal_type}</strong> {s.score.toFixed(0)} <span class="badge">{s.qualification}</span>{" "}
              <Synthetic when={s.synthetic} /> {s.evidence.summary}
            </summary>
            {open.has(s.signal_id) ? <Evidence signal={s} /> : null}
          </details>
        </li>
      ))}
    </ul>
  );
}

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
function Evidence({ signal }: { signal: Signal }) {
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
