/**
 * The SPARQL and SQL consoles: an editor that completes what /api/schema lists (prefixes, terms,
 * tables and columns), examples, Ctrl/Cmd-Enter to run, the answer as a paged table with CSV and
 * JSON downloads, and an error shown at its line and column (the cursor is put there).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type Schema, api } from "../api.ts";
import type { Editor } from "../codemirror.ts";
import { QueryEditor } from "../components/editor.tsx";
import { ErrorBox, Loading } from "../components/notes.tsx";
import { Results } from "../components/results.tsx";
import { type Route, replaceParams } from "../route.ts";

const EXAMPLES = {
  sparql: [
    ["Layer 2s of Ethereum", "SELECT ?l2 ?name WHERE {\n  ?l2 ckg:parentChain <chain/ethereum> ;\n      schema:name ?name .\n} LIMIT 25"],
    ["Entities by class", "SELECT ?class (COUNT(?e) AS ?n) WHERE {\n  ?e a ?class .\n} GROUP BY ?class ORDER BY DESC(?n)"],
    ["Which source states a fact", "SELECT ?g ?p ?o WHERE {\n  GRAPH ?g { <protocol/aave> ?p ?o }\n} LIMIT 50"],
  ],
  sql: [
    ["Largest protocols by TVL", "SELECT entity_id, \"tvlUsd\"\nFROM ts_synthetic_protocol\nWHERE date = (SELECT max(date) FROM ts_synthetic_protocol)\nORDER BY 2 DESC\nLIMIT 20"],
    ["Tables and columns", "SELECT * FROM ts_catalog"],
    ["Entities by type (graph tables)", "SELECT type, count(*) AS n FROM graph_entities GROUP BY type ORDER BY n DESC"],
  ],
} as const;

export function QueryPage({ route, language }: { route: Route; language: "sparql" | "sql" }) {
  const [schema, setSchema] = useState<Schema | null>(null);
  const [text, setText] = useState(route.params.get("q") ?? EXAMPLES[language][0][1]);
  const [answer, setAnswer] = useState<{ columns: string[]; rows: Record<string, unknown>[]; truncated: boolean } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const editor = useRef<Editor | null>(null);
  const current = useRef(text);
  current.current = text;

  useEffect(() => {
    api("GET /api/schema").then(setSchema, setError);
  }, []);
  useEffect(() => {
    setAnswer(null);
    setError(null);
  }, [language]);

  const run = async () => {
    const q = current.current;
    replaceParams({ q });
    setRunning(true);
    setError(null);
    try {
      if (language === "sql") {
        const found = await api("POST /api/timeseries", { body: { sql_query: q } });
        setAnswer({ columns: found.columns.map((c) => c.name), rows: found.data, truncated: found.truncated });
      } else {
        const found = await api("POST /api/sparql", { body: { query: q, rdf_format: "n-triples" } });
        // CONSTRUCT and DESCRIBE: the graph's triples, a row each.
        if ("form" in found) setAnswer({ columns: ["subject", "predicate", "object"], rows: tripleRows(found.rdf ?? ""), truncated: found.truncated });
        else setAnswer({ columns: found.variables, rows: found.data, truncated: found.truncated });
      }
    } catch (e) {
      setAnswer(null);
      setError(e);
      const at = e instanceof ApiError ? e.details : {};
      if (typeof at.line === "number" && typeof at.column === "number") editor.current?.goTo(at.line, at.column);
    } finally {
      setRunning(false);
    }
  };

  if (!schema) return error ? <ErrorBox error={error} /> : <Loading>Loading the schema…</Loading>;
  const tables: Record<string, string[]> = { ts_catalog: ["table_name", "kind", "source", "column_name", "column_type", "description"] };
  for (const t of [...schema.timeseries_tables, ...schema.graph_tables]) tables[t.name] = t.columns.map((c) => c.name);
  const terms = [...schema.classes.map((c) => `ckg:${c.name}`), ...schema.predicates.map((p) => `ckg:${p.name}`), "schema:name", "rdfs:label", "rdf:type"];
  const where = error instanceof ApiError && typeof error.details.line === "number" ? ` (line ${String(error.details.line)}, column ${String(error.details.column)})` : "";
  return (
    <section>
      <h1>{language === "sql" ? "SQL console" : "SPARQL console"}</h1>
      <p class="muted">
        {language === "sql"
          ? "Read-only SQL (DuckDB) over the ts_* time-series tables and the graph_entities and graph_facts tables."
          : `Read-only SPARQL SELECT, ASK, CONSTRUCT and DESCRIBE; prefixes ${Object.keys(schema.prefixes).join(", ")} are predeclared, <token/usd-coin> is an entity.`}
      </p>
      <div class="toolbar">
        <label for="example">Example</label>
        <select
          id="example"
          onChange={(e) => {
            const chosen = EXAMPLES[language].find(([name]) => name === e.currentTarget.value);
            if (chosen) editor.current?.setText(chosen[1]);
          }}
        >
          <option value="">choose…</option>
          {EXAMPLES[language].map(([name]) => (
            <option value={name}>{name}</option>
          ))}
        </select>
        <button type="button" class="primary" onClick={() => void run()} disabled={running}>
          {running ? "Running…" : "Run (Ctrl+Enter)"}
        </button>
      </div>
      <QueryEditor
        language={language}
        doc={text}
        tables={tables}
        prefixes={schema.prefixes}
        terms={terms}
        label={`${language.toUpperCase()} query`}
        onChange={setText}
        onRun={() => void run()}
        onReady={(ready) => (editor.current = ready)}
      />
      {error ? (
        <div class="query-error">
          <ErrorBox error={error} />
          {where ? <p class="where">at{where}</p> : null}
        </div>
      ) : null}
      {answer ? <Results columns={answer.columns} rows={answer.rows} truncated={answer.truncated} name={`ckg-${language}`} /> : null}
    </section>
  );
}

/** N-Triples lines as table rows: IRIs bare, literals as written (quoted, with their datatype or language). */
function tripleRows(ntriples: string): Record<string, unknown>[] {
  const term = /<([^>]*)>|(_:\S+)|("(?:[^"\\]|\\.)*"(?:@[\w-]+|\^\^<[^>]*>)?)/g;
  return ntriples
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [subject, predicate, object] = [...line.matchAll(term)].map((m) => m[1] ?? m[2] ?? m[3]);
      return { subject, predicate, object };
    });
}
