/**
 * The signals dashboard: counts by type, severity and qualification over the days, filters kept in
 * the address, and each signal's evidence with its data points charted. Live puts the signals scans
 * find from now on at the top of the list as they come (live.ts).
 */
import type { ComponentChildren } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { type Qualification, type Signal, type SignalFilters, type SignalListing, api, debounced } from "../api.ts";
import { Chart } from "../components/chart.tsx";
import { Evidence } from "../components/evidence.tsx";
import { Arrivals, LiveControl } from "../components/live.tsx";
import { ErrorBox, Loading, Synthetic } from "../components/notes.tsx";
import { type SignalEvent, useLiveSignals } from "../live.ts";
import { type Route, replaceParams } from "../route.ts";

const QUALIFICATIONS = ["all", "qualified", "screened", "pending", "rejected"];
const SEVERITIES = ["high", "moderate", "low"] as const;
/** The score bands' starts (low, moderate, high). */
const MIN_SCORES = [0, 25, 50, 75];

/** What Live subscribes to: the page's filters as a subscription's signal filters (the listing's look-back has no part in it). */
function liveFilters(type: string, minScore: number, qualification: string, entity: string): SignalFilters {
  const filters: SignalFilters = {};
  if (type) filters.types = [type];
  if (minScore > 0) filters.min_score = minScore;
  if (qualification !== "all") filters.qualification = [qualification as Exclude<Qualification, "all">];
  if (entity.trim()) filters.entities = [entity.trim()];
  return filters;
}

export function SignalsPage({ route }: { route: Route }) {
  const [types, setTypes] = useState<string[]>([]);
  const [type, setType] = useState(route.params.get("type") ?? "");
  const [qualification, setQualification] = useState(route.params.get("qualification") ?? "all");
  const [entity, setEntity] = useState(route.params.get("entity") ?? "");
  const [days, setDays] = useState(Number(route.params.get("days") ?? 30));
  const [minScore, setMinScore] = useState(Number(route.params.get("min_score") ?? 0));
  const [listing, setListing] = useState<SignalListing | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Live is not kept in the address: opening a link must not make a (possibly paid) subscription.
  const [liveOn, setLiveOn] = useState(false);
  const [liveError, setLiveError] = useState<unknown>(null);
  const filters = useMemo(() => liveFilters(type, minScore, qualification, entity), [type, minScore, qualification, entity]);
  // Made once per answer and score, not per render: Live's arrivals render often, the charts' counts need not be redone.
  const shown = useMemo(() => listing && atLeast(listing, minScore), [listing, minScore]);
  const live = useLiveSignals(liveOn ? filters : null, (failure) => {
    setLiveOn(false);
    setLiveError(failure);
  });

  useEffect(() => {
    api("GET /api/signals/catalog").then((c) => setTypes(c.signal_types.map((t) => t.slug)), setError);
  }, []);
  useEffect(() => {
    replaceParams({ type, qualification, entity, days, min_score: minScore || undefined });
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
        <label for="min-score">Min score</label>
        <select id="min-score" value={String(minScore)} onChange={(e) => setMinScore(Number(e.currentTarget.value))}>
          {MIN_SCORES.map((m) => (
            <option value={String(m)}>{m === 0 ? "any" : m}</option>
          ))}
        </select>
        <LiveControl
          on={liveOn}
          state={live.state}
          onToggle={() => {
            setLiveError(null);
            setLiveOn(!liveOn);
          }}
        />
      </form>
      {live.note ? <p class="notice">{live.note}</p> : null}
      <ErrorBox error={liveError} />
      <ErrorBox error={error} />
      {shown ? <Dashboard listing={shown} arrivals={live.arrivals} /> : error ? null : <Loading />}
    </section>
  );
}

/**
 * The listing's signals scoring at least `minScore`. The route has no score filter; its signals are
 * the strongest first, so these are the strongest that score that much (the counts stay the route's).
 */
function atLeast(listing: SignalListing, minScore: number): SignalListing {
  return minScore > 0 ? { ...listing, signals: listing.signals.filter((s) => s.score >= minScore) } : listing;
}

function Dashboard({ listing, arrivals }: { listing: SignalListing; arrivals: SignalEvent[] }) {
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
      <h2>{arrivals.length > 0 ? `New while Live (${arrivals.length}), then the strongest` : "Strongest"}</h2>
      <SignalList signals={listing.signals} first={arrivals.length > 0 ? <Arrivals events={arrivals} /> : null} />
    </div>
  );
}

/**
 * Signals, strongest first; each opens to its evidence, its data points charted in their series.
 * `first`: items above them (Live's arrivals).
 */
export function SignalList({ signals, first }: { signals: Signal[]; first?: ComponentChildren }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  if (signals.length === 0 && !first) return <p>No signals.</p>;
  const toggle = (id: string, isOpen: boolean) =>
    setOpen((now) => {
      const next = new Set(now);
      if (isOpen) next.add(id);
      else next.delete(id);
      return next;
    });
  return (
    <ul class="signals">
      {first}
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
