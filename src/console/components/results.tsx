/**
 * A query's answer as a paged table, with the whole answer downloadable as CSV or JSON. Cells that
 * are entity URIs link to the entity page.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { Table } from "./table.tsx";
import { entityHref } from "../route.ts";

const PAGE = 50;

export function Results(props: { columns: string[]; rows: Record<string, unknown>[]; truncated: boolean; name: string }) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(props.rows.length / PAGE));
  const shown = props.rows.slice(page * PAGE, page * PAGE + PAGE);
  return (
    <section class="results" aria-label="results">
      <div class="toolbar">
        <span role="status">
          {props.rows.length.toLocaleString()} row{props.rows.length === 1 ? "" : "s"}
          {props.truncated ? " (cut at the row limit)" : ""}
        </span>
        <button type="button" onClick={() => download(`${props.name}.csv`, "text/csv", toCsv(props.columns, props.rows))}>
          Download CSV
        </button>
        <button type="button" onClick={() => download(`${props.name}.json`, "application/json", JSON.stringify(props.rows, null, 2))}>
          Download JSON
        </button>
      </div>
      <div class="table-wrap">
        <Table rows={shown} columns={props.columns.map((c): [string, (row: Record<string, unknown>) => ComponentChildren] => [c, (row) => cell(row[c])])} />
      </div>
      {pages > 1 ? (
        <nav class="pager" aria-label="result pages">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            page {page + 1} of {pages}
          </span>
          <button type="button" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function cell(value: unknown) {
  if (value === null || value === undefined) return "";
  if (typeof value === "string" && value.startsWith("https://") && value.includes("/id/")) return <a href={entityHref(value)}>{value}</a>;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** RFC 4180: fields with quotes, commas or line breaks are quoted, quotes doubled. */
function toCsv(columns: string[], rows: Record<string, unknown>[]): string {
  const field = (value: unknown) => {
    const text = value === null || value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  };
  return [columns.map(field).join(","), ...rows.map((row) => columns.map((c) => field(row[c])).join(","))].join("\r\n") + "\r\n";
}

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
