/** The server's state (/readyz): snapshot and sources with the synthetic notice, scans, ingest, payments. */
import { useEffect, useState } from "preact/hooks";
import type { Readiness } from "../api.ts";
import { ErrorBox, Loading, Synthetic } from "../components/notes.tsx";
import { Table } from "../components/table.tsx";

export function StatusPage() {
  const [ready, setReady] = useState<Readiness | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    // /readyz answers 503 with the same body while the server is not ready: show it either way.
    fetch("/readyz")
      .then((r) => r.json() as Promise<Readiness>)
      .then(setReady, setError);
  }, []);
  if (error) return <ErrorBox error={error} />;
  if (!ready) return <Loading />;
  const snapshot = ready.snapshot;
  return (
    <section>
      <h1>Status</h1>
      <dl class="attributes">
        <dt>server</dt>
        <dd>
          {ready.status}, version {ready.version}, up {Math.round(ready.uptime_s / 60)} min
        </dd>
        <dt>graph</dt>
        <dd>
          {ready.graph.endpoint ? `external SPARQL store ${ready.graph.endpoint}` : `embedded, ${ready.graph.phase ?? ""}`} {ready.graph.quads ? `${ready.graph.quads.toLocaleString()} quads` : ""}
        </dd>
        <dt>state</dt>
        <dd>
          {ready.state_store} {ready.state_error ? <span class="error-text">{ready.state_error}</span> : null}
        </dd>
        <dt>payments</dt>
        <dd>
          {ready.payments.mode}
          {ready.payments.networks?.length ? ` on ${ready.payments.networks.join(", ")}` : ""}
          {ready.payments.pay_to ? `, paid to ${ready.payments.pay_to}` : ""}
          {ready.payments.pay_to_solana ? `, on Solana to ${ready.payments.pay_to_solana}` : ""}
          {ready.payments.sign_in_with_x ? `; a wallet that paid may sign in for ${ready.payments.sign_in_with_x.access_seconds} s` : ""}
        </dd>
      </dl>
      {snapshot ? (
        <>
          <h2>
            Snapshot {snapshot.id} <Synthetic when={snapshot.synthetic} />
          </h2>
          <p>as of {snapshot.as_of}</p>
          {snapshot.synthetic ? <p class="notice">{snapshot.notice}</p> : null}
          <Table
            rows={snapshot.sources}
            columns={[
              ["Source", (src) => (
                <>
                  {src.id} <Synthetic when={src.synthetic} />
                </>
              )],
              ["Kind", (src) => src.kind],
              ["Entities", (src) => src.entities.toLocaleString()],
              ["Facts", (src) => src.facts.toLocaleString()],
              ["As of", (src) => src.as_of],
            ]}
          />
        </>
      ) : null}
      {ready.scans ? (
        <>
          <h2>Scans</h2>
          <p>
            schedule {ready.scans.cron}
            {ready.scans.next_run ? `, next ${ready.scans.next_run}` : ""}
            {ready.scans.running ? `; running since ${ready.scans.running.since} (${ready.scans.running.trigger})` : ""}
          </p>
          <Table
            rows={ready.scans.recent}
            columns={[
              ["Scan", (scan) => scan.scan_id],
              ["Trigger", (scan) => scan.trigger],
              ["As of", (scan) => scan.as_of],
              ["Status", (scan) => scan.status],
              ["Finished", (scan) => scan.finished_at ?? ""],
              ["Signals", (scan) => scan.signals ?? ""],
            ]}
          />
        </>
      ) : null}
      {ready.ingest ? (
        <>
          <h2>Ingest</h2>
          <p>
            schedule {ready.ingest.cron}
            {ready.ingest.last ? `; last ${ready.ingest.last.status} at ${ready.ingest.last.started_at}` : "; none yet"}
          </p>
        </>
      ) : null}
    </section>
  );
}
