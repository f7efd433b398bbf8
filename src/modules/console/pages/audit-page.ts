// The audit log (owners only): who did what, when, on what and from where, newest first.
import type { AuditLogRow } from '../../../db/schema.js';
import { esc, page, type PageContext } from './layout.js';

export function auditPage(ctx: PageContext, rows: AuditLogRow[]): string {
  const body =
    rows.length === 0
      ? '<p>Nothing recorded yet.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Audit log"><table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">On</th><th scope="col">From</th></tr></thead><tbody>${rows
          .map(
            (r) =>
              `<tr><td>${esc(new Date(Number(r.created_at)).toISOString())}</td><td>${esc(r.actor)}</td><td><code>${esc(r.action)}</code></td><td>${r.target ? `<code>${esc(r.target)}</code>` : ''}</td><td>${esc(r.ip ?? '')}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(ctx, 'Audit log', body);
}
