// A page of records, newest first, as a table with keyset paging; and the cells its columns share.
import { esc, page, type PageContext } from './layout.js';

/** One column of a list page: its heading and how a record shows in it (already escaped HTML). */
export interface Column<T> {
  heading: string;
  cell: (row: T) => string;
}

/** An id in code type, or a dash. */
export const code = (v: string | null | undefined) => (v ? `<code>${esc(v)}</code>` : '—');
/** Plain text, or a dash when there is none. */
export const text = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '—' : esc(String(v)));
/** A payment's id, linking to its page. */
export const payLink = (env: string, id: string | null) =>
  id ? `<a href="/console/payments/${esc(id)}?env=${env}"><code>${esc(id)}</code></a>` : '—';

/** A list of records, newest first, with keyset paging by `after`. */
export function listPage<T>(
  ctx: PageContext,
  title: string,
  data: { rows: T[]; columns: Column<T>[]; next?: string; empty: string; before?: string; after?: string },
): string {
  const env = ctx.env ?? 'test';
  const table =
    data.rows.length === 0
      ? `<p>${esc(data.empty)}</p>`
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="${esc(title)}"><table><thead><tr>${data.columns
          .map((c) => `<th scope="col">${esc(c.heading)}</th>`)
          .join(
            '',
          )}</tr></thead><tbody>${data.rows.map((r) => `<tr>${data.columns.map((c) => `<td>${c.cell(r)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
  return page(
    ctx,
    title,
    `${data.before ?? ''}${table}${data.next ? `<p><a href="${ctx.path}?env=${env}&amp;after=${esc(data.next)}">Next page</a></p>` : ''}${data.after ?? ''}`,
  );
}
