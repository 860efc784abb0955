/**
 * Push subscriptions: make one (the secret shown once), and manage the ones this browser made (kept
 * with their secrets in localStorage, kept.ts): each one's status, period, filters and deliveries,
 * read with its secret; rotate its secret (the new one shown once) or delete it.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, type MadeSubscription, type SessionInfo, type Subscription, type SubscriptionFilters, api } from "../api.ts";
import { ErrorBox, Loading } from "../components/notes.tsx";
import { ShownOnce } from "../components/secret.tsx";
import { SubscriptionForm } from "../components/subscription-form.tsx";
import { type KeptSubscription, forget, keep, keptSubscriptions, updateKept } from "../kept.ts";
import { href } from "../route.ts";

export function SubscriptionsPage({ session }: { session: SessionInfo | null }) {
  const [kept, setKept] = useState(keptSubscriptions);
  const [made, setMade] = useState<MadeSubscription | null>(null);
  const [version, setVersion] = useState(0);
  const reload = () => setKept(keptSubscriptions());
  const onMade = (m: MadeSubscription) => {
    keep({ subscription_id: m.subscription_id, secret: m.secret, made_at: m.created_at, expires_at: m.expires_at });
    setMade(m);
    reload();
  };
  return (
    <section>
      <h1>Subscriptions</h1>
      <p class="muted">
        Signals and graph changes pushed as they happen: signed webhooks (Standard Webhooks), an event stream (Server-Sent Events), or both. A
        subscription runs for a paid period; deliveries in it cost nothing more.
      </p>
      {session && session.payments !== "off" && !session.signed_in ? (
        <p class="notice">
          Making a subscription is paid (x402). <a href={href("signin")}>Signing in as the operator</a> makes it free; reading, rotating and deleting
          are free.
        </p>
      ) : null}
      <h2>New subscription</h2>
      <SubscriptionForm onMade={onMade} />
      {made ? <ShownOnce secret={made.secret} label={`The secret of ${made.subscription_id}`} /> : null}
      <div class="toolbar">
        <h2 id="kept">Made in this browser</h2>
        {kept.length > 0 ? (
          <button type="button" onClick={() => setVersion(version + 1)}>
            Refresh
          </button>
        ) : null}
      </div>
      {kept.length === 0 ? (
        <p>None yet. Subscriptions made here (and by the signals page's Live) are listed with their secrets kept in this browser.</p>
      ) : (
        <ul class="subscriptions" aria-labelledby="kept">
          {[...kept].reverse().map((k) => (
            <KeptItem key={k.subscription_id} kept={k} version={version} onChange={reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

function KeptItem({ kept, version, onChange }: { kept: KeptSubscription; version: number; onChange(): void }) {
  const id = kept.subscription_id;
  const [sub, setSub] = useState<Subscription | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [rotated, setRotated] = useState<string | null>(null);
  const [deleting, setDeleting] = useState(false);
  const call = { params: { subscription_id: id }, bearer: kept.secret };
  useEffect(() => {
    api("GET /api/subscriptions/{subscription_id}", call).then((s) => (setSub(s), setError(null)), setError);
  }, [id, version]);
  const rotate = () =>
    api("POST /api/subscriptions/{subscription_id}/secret", { ...call, body: {} }).then((r) => {
      updateKept(id, { secret: r.secret });
      setRotated(r.secret);
      onChange();
    }, setError);
  const remove = () =>
    api("DELETE /api/subscriptions/{subscription_id}", call).then(() => {
      forget(id);
      onChange();
    }, setError);
  // Gone from the server (deleted elsewhere, or past its kept days): all this browser can do is forget it.
  const gone = error instanceof ApiError && (error.status === 404 || error.status === 401);

  return (
    <li class="subscription" data-id={id} aria-labelledby={`h-${id}`}>
      <h3 id={`h-${id}`}>
        <code>{id}</code> {kept.live_for !== undefined ? <span class="badge">made by Live</span> : null}
      </h3>
      <ErrorBox error={error} />
      {sub ? <Details sub={sub} /> : error ? null : <Loading />}
      {rotated ? <ShownOnce secret={rotated} label="The new secret" /> : null}
      <div class="toolbar">
        {gone ? (
          <button type="button" onClick={() => (forget(id), onChange())}>
            Forget
          </button>
        ) : deleting ? (
          <>
            <span>Delete {id}? Its stream closes and pending webhooks are cancelled.</span>
            <button type="button" class="danger" onClick={() => void remove()}>
              Yes, delete
            </button>
            <button type="button" onClick={() => setDeleting(false)}>
              Keep it
            </button>
          </>
        ) : (
          <>
            <button type="button" onClick={() => void rotate()}>
              Rotate secret
            </button>
            <button type="button" onClick={() => setDeleting(true)}>
              Delete
            </button>
          </>
        )}
      </div>
    </li>
  );
}

function Details({ sub }: { sub: Subscription }) {
  const counts = Object.entries(sub.deliveries.counts);
  return (
    <dl class="attributes">
      <dt>status</dt>
      <dd data-field="status">
        {sub.status}
        {sub.status_reason ? ` (${sub.status_reason})` : ""}
      </dd>
      <dt>period ends</dt>
      <dd>{sub.expires_at}</dd>
      <dt>signals</dt>
      <dd>{signalsText(sub.filters)}</dd>
      <dt>graph changes</dt>
      <dd>{sub.filters.changes ? (sub.filters.changes.operations?.join(", ") ?? "all") + entitiesText(sub.filters.changes.entities) : "off"}</dd>
      <dt>delivery</dt>
      <dd>{[sub.webhook_url ? `webhook ${sub.webhook_url}` : null, sub.stream ? "event stream" : null].filter(Boolean).join(" and ")}</dd>
      <dt>webhook deliveries</dt>
      <dd data-field="deliveries">{counts.length ? counts.map(([state, n]) => `${state} ${n}`).join(", ") : "none yet"}</dd>
      <dt>last error</dt>
      <dd data-field="last-error">{sub.deliveries.last_error ?? "none"}</dd>
    </dl>
  );
}

function signalsText(filters: SubscriptionFilters): string {
  const s = filters.signals;
  if (!s) return "off";
  const parts = [
    s.types ? `types ${s.types.join(", ")}` : "every type",
    s.min_score !== undefined ? `score ≥ ${s.min_score}` : null,
    s.qualification ? s.qualification.join(" or ") : null,
  ].filter(Boolean);
  return parts.join("; ") + entitiesText(s.entities);
}

function entitiesText(entities: string[] | undefined): string {
  return entities ? `; about ${entities.map((uri) => uri.replace(/^.*\/id\//, "")).join(", ")}` : "";
}
