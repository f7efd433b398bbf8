// The audit log (owners only): who did what, when, on what and from where, newest first.
import type { AuditLogRow } from '../../../db/schema.js';
import { page, type PageContext } from './layout.js';
import { Table, type Column } from './list-page.js';

const COLUMNS: Column<AuditLogRow>[] = [
  { heading: 'When', cell: (r) => new Date(Number(r.created_at)).toISOString() },
  { heading: 'Who', cell: (r) => r.actor },
  { heading: 'What', cell: (r) => <code>{r.action}</code> },
  { heading: 'On', cell: (r) => (r.target ? <code>{r.target}</code> : '') },
  { heading: 'From', cell: (r) => r.ip ?? '' },
];

export function auditPage(ctx: PageContext, rows: AuditLogRow[]): string {
  return page(
    ctx,
    'Audit log',
    rows.length === 0 ? <p>Nothing recorded yet.</p> : <Table label="Audit log" rows={rows} columns={COLUMNS} />,
  );
}
