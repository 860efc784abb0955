/** Search as you type: names, symbols, misspellings and meaning, with a type filter. */
import { useEffect, useState } from "preact/hooks";
import { type Answer, type EntityType, api, debounced } from "../api.ts";
import { ErrorBox } from "../components/notes.tsx";
import { type Route, entityHref, replaceParams } from "../route.ts";

const TYPES = ["Token", "Protocol", "Chain", "Organization", "Person", "Exchange", "Pool"];

export function SearchPage({ route }: { route: Route }) {
  const [text, setText] = useState(route.params.get("q") ?? "");
  const [type, setType] = useState(route.params.get("type") ?? "");
  const [answer, setAnswer] = useState<Answer<"POST /api/search"> | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    replaceParams({ q: text, type });
    if (!text.trim()) {
      setAnswer(null);
      return;
    }
    // As you type: a request once the typing pauses, the one before cancelled.
    return debounced(
      (signal) => api("POST /api/search", { body: { query: text, limit: 20, ...(type ? { entity_types: [type as EntityType] } : {}) }, signal }),
      (found, failure) => {
        if (found) setAnswer(found);
        setError(failure);
      },
      150,
    );
  }, [text, type]);

  return (
    <section>
      <h1>Search</h1>
      <form class="search" role="search" onSubmit={(e) => e.preventDefault()}>
        <label for="q">Name, symbol or meaning</label>
        <input id="q" type="search" value={text} autoFocus autoComplete="off" placeholder="Arbitrum, USDT, lending on solana…" onInput={(e) => setText(e.currentTarget.value)} />
        <label for="type">Type</label>
        <select id="type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
          <option value="">all types</option>
          {TYPES.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
      </form>
      <ErrorBox error={error} />
      {answer ? (
        <>
          <p role="status">
            {answer.total_count.toLocaleString()} found{answer.results.length < answer.total_count ? `, the first ${answer.results.length} shown` : ""}
          </p>
          <ol class="hits">
            {answer.results.map((r) => (
              <li>
                <a href={entityHref(r.uri)}>{r.name}</a> <span class="muted">{r.labels.join(", ")}</span>{" "}
                <span class="muted" title="similarity: 1 exact, 0.8-0.99 the words of a name, below 0.8 meaning">
                  {r.similarity.toFixed(2)}
                </span>
              </li>
            ))}
          </ol>
        </>
      ) : null}
    </section>
  );
}
