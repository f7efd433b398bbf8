// A page of records, newest first, as a table with keyset paging; and the cells its columns share.
import { page, type Html, type PageContext } from './layout.js';

/** One column of a list page: its heading and how a record shows in it. */
export interface Column<T> {
  heading: string;
  cell: (row: T) => Html;
}

/** An id in code type, or a dash. */
export const code = (v: string | null | undefined): Html => (v ? <code>{v}</code> : '—');
/** Plain text, or a dash when there is none. */
export const text = (v: string | number | null | undefined): Html => (v === null || v === undefined || v === '' ? '—' : String(v));
/** A payment's id, linking to its page. */
export const payLink = (env: string, id: string | null): Html =>
  id ? (
    <a href={`/console/payments/${id}?env=${env}`}>
      <code>{id}</code>
    </a>
  ) : (
    '—'
  );

/** A table of records in a scrollable, labelled region. */
export function Table<T>({ label, rows, columns, caption }: { label: string; rows: T[]; columns: Column<T>[]; caption?: string }) {
  return (
    <div class="table-wrap" tabindex={0} role="region" aria-label={label}>
      <table>
        {caption ? <caption class="hint">{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col">{c.heading}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              {columns.map((c) => (
                <td data-label={c.heading}>{c.cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A list of records, newest first, with keyset paging by `after`. */
export function listPage<T>(
  ctx: PageContext,
  title: string,
  data: { rows: T[]; columns: Column<T>[]; next?: string; empty: string; before?: Html; after?: Html },
): string {
  const env = ctx.env ?? 'test';
  return page(
    ctx,
    title,
    <>
      {data.before}
      {data.rows.length === 0 ? <p>{data.empty}</p> : <Table label={title} rows={data.rows} columns={data.columns} />}
      {data.next ? (
        <p>
          <a href={`${ctx.path}?env=${env}&after=${data.next}`}>Next page</a>
        </p>
      ) : null}
      {data.after}
    </>,
  );
}
