/**
 * The form that makes a subscription: which signals (types from the catalog, min score,
 * qualification, entities) and graph changes (on or off, by operation) it hears, and where they go
 * (a webhook URL, the event stream, or both). The server checks it all; its errors are shown as they
 * come, before any payment is asked.
 */
import { useEffect, useState } from "preact/hooks";
import { type Answer, type ChangeOperation, type MadeSubscription, type Qualification, type SubscriptionRequest, api } from "../api.ts";
import { ErrorBox } from "./notes.tsx";

type State = Exclude<Qualification, "all">;

const STATES: State[] = ["qualified", "screened", "pending", "rejected"];
const OPERATIONS: ChangeOperation[] = ["CREATE", "UPDATE"];

export function SubscriptionForm({ onMade }: { onMade(made: MadeSubscription): void }) {
  const [catalog, setCatalog] = useState<Answer<"GET /api/signals/catalog">["signal_types"]>([]);
  const [signalsOn, setSignalsOn] = useState(true);
  const [types, setTypes] = useState<string[]>([]);
  const [minScore, setMinScore] = useState("");
  const [states, setStates] = useState<State[]>([]);
  const [entities, setEntities] = useState("");
  const [changesOn, setChangesOn] = useState(false);
  const [operations, setOperations] = useState<ChangeOperation[]>([]);
  const [webhook, setWebhook] = useState("");
  const [stream, setStream] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    api("GET /api/signals/catalog").then((c) => setCatalog(c.signal_types), setError);
  }, []);

  const body = (): SubscriptionRequest => {
    const names = entities
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    return {
      filters: {
        signals: signalsOn && {
          ...(types.length ? { types } : {}),
          ...(minScore !== "" ? { min_score: Number(minScore) } : {}),
          ...(states.length ? { qualification: states } : {}),
          ...(names.length ? { entities: names } : {}),
        },
        changes: changesOn && (operations.length ? { operations } : {}),
      },
      ...(webhook.trim() ? { webhook_url: webhook.trim() } : {}),
      stream,
    };
  };
  const submit = (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    api("POST /api/subscriptions", { body: body() })
      .then(onMade, setError)
      .finally(() => setBusy(false));
  };

  return (
    <form class="subscribe" onSubmit={submit}>
      <fieldset>
        <legend>
          <label>
            <input type="checkbox" checked={signalsOn} onChange={(e) => setSignalsOn(e.currentTarget.checked)} /> Signals
          </label>
        </legend>
        <label for="sub-types">Types (none chosen: every type)</label>
        <select id="sub-types" multiple size={6} disabled={!signalsOn} onChange={(e) => setTypes([...e.currentTarget.selectedOptions].map((o) => o.value))}>
          {catalog.map((t) => (
            <option value={t.slug} selected={types.includes(t.slug)}>
              {t.slug}
            </option>
          ))}
        </select>
        <label for="sub-min-score">Min score (0–100)</label>
        <input id="sub-min-score" type="number" min={0} max={100} value={minScore} disabled={!signalsOn} onInput={(e) => setMinScore(e.currentTarget.value)} />
        <Checks legend="Qualification (none: every state)" all={STATES} chosen={states} onChange={setStates} disabled={!signalsOn} />
        <label for="sub-entities">Entities (comma-separated names or URIs)</label>
        <input id="sub-entities" value={entities} disabled={!signalsOn} placeholder="USD Coin, Aave" onInput={(e) => setEntities(e.currentTarget.value)} />
      </fieldset>
      <fieldset>
        <legend>
          <label>
            <input type="checkbox" checked={changesOn} onChange={(e) => setChangesOn(e.currentTarget.checked)} /> Graph changes
          </label>
        </legend>
        <Checks legend="Operations (none: both)" all={OPERATIONS} chosen={operations} onChange={setOperations} disabled={!changesOn} />
      </fieldset>
      <fieldset>
        <legend>Delivery</legend>
        <label for="sub-webhook">Webhook URL</label>
        <input id="sub-webhook" type="url" value={webhook} placeholder="https://hooks.example.com/ckg" onInput={(e) => setWebhook(e.currentTarget.value)} />
        <label>
          <input type="checkbox" checked={stream} onChange={(e) => setStream(e.currentTarget.checked)} /> Event stream (GET /api/events)
        </label>
      </fieldset>
      <button type="submit" class="primary" disabled={busy}>
        Subscribe
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

function Checks<T extends string>(props: { legend: string; all: T[]; chosen: T[]; onChange(chosen: T[]): void; disabled: boolean }) {
  return (
    <fieldset class="checks" disabled={props.disabled}>
      <legend>{props.legend}</legend>
      {props.all.map((value) => (
        <label>
          <input
            type="checkbox"
            value={value}
            checked={props.chosen.includes(value)}
            onChange={(e) => props.onChange(e.currentTarget.checked ? [...props.chosen, value] : props.chosen.filter((v) => v !== value))}
          />{" "}
          {value}
        </label>
      ))}
    </fieldset>
  );
}
