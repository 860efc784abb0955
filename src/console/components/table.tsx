/** A plain table of records: a header per column and a cell each, drawn by the column's function. */
import type { ComponentChildren } from "preact";

export type Columns<T> = [heading: string, cell: (row: T) => ComponentChildren][];

export function Table<T>({ columns, rows }: { columns: Columns<T>; rows: T[] }) {
  return (
    <table>
      <thead>
        <tr>
          {columns.map(([heading]) => (
            <th scope="col">{heading}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr>
            {columns.map(([, cell]) => (
              <td>{cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
