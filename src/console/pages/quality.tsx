/**
 * Signal quality (`#/quality`, `#/quality/<event id>` opens at that event): the backtest the
 * catalog carries (GET /api/signals/catalog, free), the shipped one on the recorded real history or
 * the data directory's own (`ckg backtest --publish`). Its world, window, labels and horizon; each
 * type's detection, warning and alarms; each labelled event with the entity's series around its day
 * and the days each type fired marked on it; the controls that must stay quiet.
 */
import { useEffect, useState } from "preact/hooks";
import { type Catalog, type LabelledEvent, type QualityReport, type TypeQuality, api } from "../api.ts";
import { EventChart, type Point } from "../components/event-chart.tsx";
import { ErrorBox, Loading } from "../components/notes.tsx";
import { Table } from "../components/table.tsx";
import { type Route, entityHref, href } from "../route.ts";

const DAY_MS = 86_400_000;
const addDays = (day: string, n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

export function QualityPage({ route }: { route: Route }) {
  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [uriBase, setUriBase] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    api("GET /api/signals/catalog").then(setCatalog, setError);
    // Entity links by URI (names can be shared): the URI pattern is in the schema.
    api("GET /api/schema").then((s) => setUriBase(s.entity_uri_pattern.replace(/<type>\/<slug>$/, "")), () => undefined);
  }, []);
  useEffect(() => {
    if (catalog && route.arg) document.getElementById(`event-${route.arg}`)?.scrollIntoView();
  }, [catalog, route.arg]);
  if (error) return <ErrorBox error={error} />;
  if (!catalog) return <Loading />;
  const report = catalog.quality;
  const link = (entity: string, name: string) => (uriBase ? entityHref(`${uriBase}${entity}`) : entityHref(name));
  return (
    <section class="quality" data-ready="yes">
      <h1>Signal quality</h1>
      <p>
        How often each signal type was right, and how early: a window of days replayed through the real detectors, each day reading only what was known by then,
        graded against labelled real events (<code>ckg backtest</code>). Every signal's answer carries its type's precision and median lead from this report.
      </p>
      <About report={report} />
      <h2 id="by-type">By type</h2>
      <TypeTable types={catalog.signal_types.map((t) => t.quality)} />
      <h2 id="events">Labelled events</h2>
      <Events report={report} link={link} />
      <h2 id="controls">Controls</h2>
      <p>Days a watched type must stay quiet on the entity: a control holds when none of its types fired from its first day to its last.</p>
      <Table
        rows={report.controls}
        columns={[
          ["Control", (c) => c.id],
          ["Entity", (c) => <a href={link(c.entity, c.entity)}>{c.entity}</a>],
          ["Days", (c) => `${c.from} to ${c.until}`],
          ["Watched types", (c) => c.types.join(", ")],
          ["Counted", (c) => (c.in_window ? "yes" : "no: outside the window")],
          ["Result", (c) => (c.held ? <strong class="held">held</strong> : <span class="error-text">fired: {c.fired.map((f) => `${f.type} on ${f.day}`).join(", ")}</span>)],
        ]}
      />
    </section>
  );
}

function About({ report }: { report: QualityReport }) {
  return (
    <dl class="attributes about">
      <dt>window</dt>
      <dd>
        {report.window.from} to {report.window.to} ({report.window.days.toLocaleString()} days)
      </dd>
      <dt>labels</dt>
      <dd>
        {report.labels.files.join(", ")}: {report.labels.count} labels, {report.labels.in_window} in the window
        {report.labels.left_out.length > 0 ? `; left out, their entities not in this world: ${report.labels.left_out.join(", ")}` : ""}
      </dd>
      <dt>world</dt>
      <dd>{report.world}</dd>
      <dt>horizon</dt>
      <dd>
        {report.horizon_days} days (a warning counts when the type fired in the {report.horizon_days} days before an incident; an alarm is confirmed by a labelled
        event up to {report.horizon_days} days after its start)
      </dd>
      <dt>detection</dt>
      <dd>an event is caught when the type fired on its entity from the day before to {report.detect_window_days} days after</dd>
      <dt>episodes</dt>
      <dd>a run of days a type fired on one subject, gaps of up to {report.episode_gap_days} days bridged</dd>
      <dt>generated</dt>
      <dd>
        {report.generated_at}, {report.speed.days_per_minute.toLocaleString()} days of replay a minute
      </dd>
    </dl>
  );
}

const dash = (why: string) => (
  <span class="muted" title={why}>
    –
  </span>
);

function TypeTable({ types }: { types: TypeQuality[] }) {
  // The measured first, each group in the catalog's order.
  const rows = [...types].sort((a, b) => Number(b.measured) - Number(a.measured));
  return (
    <div class="table-wrap">
      <table class="quality-types">
        <caption class="muted">{`${rows.filter((t) => t.measured).length} of ${rows.length} types measured; – where the figure does not apply`}</caption>
        <colgroup>
          <col />
          <col />
        </colgroup>
        <colgroup span={2} />
        <colgroup span={2} />
        <colgroup span={3} />
        <thead>
          <tr>
            <th scope="col" rowSpan={2}>
              Type
            </th>
            <th scope="col" rowSpan={2}>
              Measured
            </th>
            <th scope="colgroup" colSpan={2}>
              Detection
            </th>
            <th scope="colgroup" colSpan={2}>
              Warning
            </th>
            <th scope="colgroup" colSpan={3}>
              Alarms
            </th>
          </tr>
          <tr>
            <th scope="col">caught</th>
            <th scope="col">median delay</th>
            <th scope="col">preceded</th>
            <th scope="col">median lead</th>
            <th scope="col">episodes</th>
            <th scope="col">per 100 entity-months</th>
            <th scope="col">precision</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((q) => (
            <tr class={q.measured ? "measured" : "unmeasured"} data-type={q.slug}>
              <th scope="row">
                <a href={href("signals", undefined, { type: q.slug })}>{q.slug}</a>
              </th>
              <td class="reason">{q.measured ? "yes" : <span class="muted">{q.reason}</span>}</td>
              <td class="num">{q.detection ? `${q.detection.caught} of ${q.detection.events}` : dash("names no kind of labelled event")}</td>
              <td class="num">{q.detection?.median_delay_days != null ? days(q.detection.median_delay_days) : dash("nothing caught")}</td>
              <td class="num">
                {q.warning ? <span title={q.warning.leads.map((l) => `${l.event}: ${days(l.lead_days)} before`).join("\n")}>{`${q.warning.preceded} of ${q.warning.incidents}`}</span> : dash("not a risk type")}
              </td>
              <td class="num">{q.warning?.median_lead_days != null ? days(q.warning.median_lead_days) : dash("no incident preceded")}</td>
              <td class="num">{q.alarms.episodes.toLocaleString()}</td>
              <td class="num">{q.alarms.per_100_entity_months != null ? round(q.alarms.per_100_entity_months) : dash("reads no series with days to count")}</td>
              <td class="num">
                {q.alarms.precision != null ? `${Math.round(q.alarms.precision * 100)}% (${q.alarms.confirmed} of ${q.alarms.episodes})` : dash("no episode to confirm")}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const days = (n: number) => `${round(n)} day${n === 1 ? "" : "s"}`;
const round = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 1 });

/** The report's points as [day, value]: the generated type does not carry the tuple, so each is checked. */
function pointsOf(series: LabelledEvent["series"]): Point[] {
  const points: Point[] = [];
  for (const p of (series?.points ?? []) as unknown[]) {
    if (Array.isArray(p) && typeof p[0] === "string" && (typeof p[1] === "number" || p[1] === null)) points.push([p[0], p[1]]);
  }
  return points;
}

function Events({ report, link }: { report: QualityReport; link(entity: string, name: string): string }) {
  const anySeries = report.events.some((e) => pointsOf(e.series).length > 0);
  const counted = report.events.filter((e) => e.in_window && e.independent).length;
  return (
    <>
      <p>
        {report.events.length} labelled events, {counted} counted (an event outside the window, or established only from the series the detectors read, is shown and
        never counted). Each chart shows the entity's series around the day and, one row per type, the days it fired on the entity:{" "}
        <span class="legend">
          <svg width="12" height="12" aria-hidden="true">
            <circle class="mark screened" cx="6" cy="6" r="5" />
          </svg>{" "}
          passed its screens,{" "}
          <svg width="12" height="12" aria-hidden="true">
            <circle class="mark unscreened" cx="6" cy="6" r="4.5" />
          </svg>{" "}
          failed one,{" "}
          <svg width="14" height="12" aria-hidden="true">
            <line class="event-day" x1="7" x2="7" y1="0" y2="12" />
          </svg>{" "}
          the event's day, shaded: the detection window.
        </span>
      </p>
      {anySeries ? null : (
        <p class="notice">
          This report carries no series: the shipped report leaves them out (they are the recorded providers' figures, read in place and not ours to ship), so each chart
          shows the days the types fired on a day axis alone. A data directory's own report (<code>ckg backtest --publish</code>) has them.
        </p>
      )}
      {report.events.map((e) => (
        <EventItem event={e} report={report} link={link} anySeries={anySeries} />
      ))}
    </>
  );
}

function EventItem({ event: e, report, link, anySeries }: { event: LabelledEvent; report: QualityReport; link(entity: string, name: string): string; anySeries: boolean }) {
  const points = pointsOf(e.series);
  const firedDays = e.fired.flatMap((f) => f.days);
  const from = [addDays(e.day, -Math.max(report.horizon_days, 30)), points[0]?.[0], ...firedDays].filter((d): d is string => !!d).sort()[0]!;
  const to = [addDays(e.day, report.detect_window_days * 2), points.at(-1)?.[0], ...firedDays].filter((d): d is string => !!d).sort().at(-1)!;
  const status = !e.in_window ? "not counted: outside the window" : !e.independent ? "not counted: established only from the series the detectors read" : "counted";
  const label = e.series ? `${e.series.column} (${e.series.table})` : "";
  return (
    <article class="event" id={`event-${e.id}`} data-event={e.id} aria-labelledby={`event-${e.id}-h`}>
      <h3 id={`event-${e.id}-h`}>
        <a href={href("quality", e.id)}>{e.name}</a>: {e.kind} on {e.day}
      </h3>
      <p>
        <a href={link(e.entity, e.name)}>{e.entity}</a> · <span class={`badge ${status === "counted" ? "counted" : "not-counted"}`}>{status}</span>
      </p>
      <p class="source">{e.source}</p>
      {points.length === 0 && anySeries ? <p class="muted">No series of this entity in the backtest's world: the days each type fired alone.</p> : null}
      <EventChart
        id={`chart-${e.id}`}
        title={points.length > 0 ? `${label} of ${e.name} around ${e.day}, and the days each signal type fired` : `Days each signal type fired on ${e.name} around ${e.day} (no series)`}
        day={e.day}
        from={from}
        to={to}
        detectFrom={addDays(e.day, -1)}
        detectTo={addDays(e.day, report.detect_window_days)}
        series={points.length > 0 ? { label: e.series!.column, points } : null}
        fired={e.fired}
      />
    </article>
  );
}
