/** The changes feed: creates and updates of graph entities, newest first, page by page. */
import { useEffect, useState } from "preact/hooks";
import { type Change, type ChangeOperation, api } from "../api.ts";
import { ErrorBox, Loading } from "../components/notes.tsx";
import { Table } from "../components/table.tsx";
import { type Route, entityHref, replaceParams } from "../route.ts";

export function ChangesPage({ route }: { route: Route }) {
  const [hours, setHours] = useState(Number(route.params.get("hours") ?? 72));
  const [operation, setOperation] = useState(route.params.get("operation") ?? "");
  const [changes, setChanges] = useState<Change[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = async (after: string | null) => {
    try {
      const page = await api("GET /api/changes", {
        params: { since_hours: hours, operation: (operation || undefined) as ChangeOperation | undefined, limit: 100, cursor: after ?? undefined },
      });
      // Without summary=true the answer is a page of changes.
      if (!("changes" in page)) throw new Error("/api/changes answered a summary to a request for changes");
      setChanges((list) => [...(after ? (list ?? []) : []), ...page.changes]);
      setCursor(page.next_cursor);
      setError(null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    replaceParams({ hours, operation });
    setChanges(null);
    void load(null);
  }, [hours, operation]);

  return (
    <section>
      <h1>Changes</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label for="hours">Hours</label>
        <select id="hours" value={String(hours)} onChange={(e) => setHours(Number(e.currentTarget.value))}>
          {[24, 72, 168, 720, 8760].map((h) => (
            <option value={String(h)}>{h}</option>
          ))}
        </select>
        <label for="operation">Operation</label>
        <select id="operation" value={operation} onChange={(e) => setOperation(e.currentTarget.value)}>
          <option value="">both</option>
          <option value="CREATE">CREATE</option>
          <option value="UPDATE">UPDATE</option>
        </select>
      </form>
      <ErrorBox error={error} />
      {changes === null ? (
        error ? null : <Loading />
      ) : (
        <>
          <Table<Change>
            rows={changes}
            columns={[
              ["When", (c) => c.timestamp],
              ["Entity", (c) => <a href={entityHref(c.entity_uri)}>{c.entity_name}</a>],
              ["Type", (c) => c.entity_type],
              ["Operation", (c) => c.operation],
              ["Fields", (c) => c.changed_fields.join(", ")],
              ["Source", (c) => <span class="source">{c.source}</span>],
            ]}
          />
          {cursor ? (
            <button type="button" onClick={() => void load(cursor)}>
              More
            </button>
          ) : (
            <p class="muted">{changes.length === 0 ? "No changes in this window." : "The end of the feed for this window."}</p>
          )}
        </>
      )}
    </section>
  );
}
