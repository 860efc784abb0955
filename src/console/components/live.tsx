/** The signals page's Live control (a toggle and the stream's state) and the events it brings, marked as new. */
import type { LiveState, SignalEvent } from "../live.ts";
import { entityHref } from "../route.ts";

const STATE_TEXT: Record<LiveState, string> = {
  off: "off",
  connecting: "connecting…",
  live: "live",
  reconnecting: "reconnecting…",
  ended: "ended",
};

export function LiveControl({ on, state, onToggle }: { on: boolean; state: LiveState; onToggle(): void }) {
  return (
    <span class="live-control">
      <button type="button" aria-pressed={on} onClick={onToggle} title="Show new signals as scans find them (an event-stream subscription for these filters)">
        Live
      </button>{" "}
      <span class={`live-state ${state}`} role="status" data-state={state}>
        {STATE_TEXT[state]}
      </span>
    </span>
  );
}

const MARK: Record<SignalEvent["type"], string> = { "signal.new": "new", "signal.updated": "updated", "signal.ended": "ended" };

/** Events as they came, newest first: the top of the signals list while Live is on. */
export function Arrivals({ events }: { events: SignalEvent[] }) {
  return (
    <>
      {events.map((e) => (
        <li key={`live ${e.data.signal_id}`} class="arrived" data-event={e.type}>
          <mark class={`arrival ${MARK[e.type]}`}>{MARK[e.type]}</mark> <span class={`severity ${e.data.severity}`}>{e.data.severity}</span> <strong>{e.data.signal_type}</strong>{" "}
          {e.data.score.toFixed(0)} <span class="badge">{e.data.qualification}</span> <Entities uris={e.data.entities} />{" "}
          <span class="muted">
            data as of {e.data.data_as_of.slice(0, 10)} · {new Date(e.timestamp).toLocaleTimeString()}
          </span>
        </li>
      ))}
    </>
  );
}

/** An event names its entities by URI: the main subject first, linked to its page. */
function Entities({ uris }: { uris: string[] }) {
  const [first, ...rest] = uris;
  if (!first) return null;
  const name = (uri: string) => uri.replace(/^.*\/id\//, "");
  return (
    <>
      {first.startsWith("https://") ? <a href={entityHref(first)}>{name(first)}</a> : first}
      {rest.length > 0 ? <span class="muted"> and {rest.length} more</span> : null}
    </>
  );
}
