// The merchant's records as list pages (refunds, settlements, customers, payment links, events: their
// columns), the form creating a payment link and the form of the CSV reports.
import type { Customer } from '../../customers/index.js';
import type { PaymentLink } from '../../payment-links/index.js';
import type { Refund } from '../../refunds/index.js';
import type { Settlement } from '../../settlements/index.js';
import type { WebhookEvent } from '../../webhooks/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, type Env, type Html } from './layout.js';
import { code, payLink, text, type Column } from './list-page.js';

export const refundColumns = (env: Env, session?: ConsoleSession): Column<Refund>[] => [
  { heading: 'Refund', cell: (r) => code(r.id) },
  { heading: 'Payment', cell: (r) => payLink(env, r.payment_intent) },
  { heading: 'Amount', cell: (r) => `${r.currency} ${r.amount}` },
  {
    heading: 'Status',
    cell: (r) => (
      <>
        <span class="status">{r.status}</span>
        {r.failure_reason ? (
          <>
            <br />
            {text(r.failure_reason)}
          </>
        ) : null}
      </>
    ),
  },
  { heading: 'Created', cell: (r) => text(r.created_at) },
  ...(env === 'live' && session?.user.role === 'owner' ? [{ heading: 'Decision', cell: (r: Refund) => refundDecision(r, session) }] : []),
];

/** An owner's approve and reject of a requested live refund. */
function refundDecision(r: Refund, session: ConsoleSession): Html {
  if (r.status !== 'requested') return '';
  return (
    <>
      <form method="post" action={`/console/refunds/${r.id}/approve?env=live`}>
        <CsrfField session={session} />
        <button type="submit" aria-label={`Approve ${r.id}`}>
          Approve
        </button>
      </form>
      <form method="post" action={`/console/refunds/${r.id}/reject?env=live`}>
        <CsrfField session={session} />
        <label for={`reason-${r.id}`}>Reason</label>
        <input id={`reason-${r.id}`} name="reason" required maxLength={500} />
        <button type="submit" class="secondary" aria-label={`Reject ${r.id}`}>
          Reject
        </button>
      </form>
    </>
  );
}

export const settlementColumns = (env: Env): Column<Settlement>[] => [
  { heading: 'Settlement', cell: (r) => code(r.id) },
  { heading: 'Payment', cell: (r) => payLink(env, r.payment_intent) },
  {
    heading: 'Amount',
    cell: (r) => (
      <>
        {text(r.amount)} {r.asset}
      </>
    ),
  },
  { heading: 'Status', cell: (r) => <span class="status">{r.status}</span> },
  { heading: 'Available', cell: (r) => text(r.available_at) },
];

export const customerColumns = (): Column<Customer>[] => [
  { heading: 'Customer', cell: (r) => code(r.id) },
  { heading: 'Name', cell: (r) => text(r.name) },
  { heading: 'Email', cell: (r) => text(r.email) },
  { heading: 'Phone', cell: (r) => text(r.phone) },
  { heading: 'Created', cell: (r) => text(r.created_at) },
];

/** A payment link with its QR code (a data: URL, '' when it has no URL). */
export type LinkWithQr = PaymentLink & { qr: string };

export const linkColumns = (): Column<LinkWithQr>[] => [
  {
    heading: 'Link',
    cell: (r) => (
      <>
        {r.title}
        <br />
        {code(r.id)}
      </>
    ),
  },
  {
    heading: 'URL',
    cell: (r) => (
      <>
        <label for={`url-${r.id}`} class="hint">
          Copy the link
        </label>
        <input id={`url-${r.id}`} type="text" readOnly value={r.url ?? ''} />
      </>
    ),
  },
  { heading: 'Amount', cell: (r) => `${r.currency} ${r.amount === null ? 'set by the customer' : r.amount}` },
  { heading: 'Status', cell: (r) => <span class="status">{r.status}</span> },
  { heading: 'QR code', cell: (r) => <img src={r.qr} alt={`QR code of ${r.title}`} width={120} height={120} /> },
];

/** The form creating a payment link, offered to owners only. */
export function linkForm(session: ConsoleSession, env: Env): Html {
  if (session.user.role !== 'owner') return null;
  return (
    <form method="post" action={`/console/links?env=${env}`} class="card">
      <CsrfField session={session} />
      <h2>Create a payment link</h2>
      <label for="link-title">Title</label>
      <input id="link-title" name="title" type="text" required />
      <label for="link-currency">Currency</label>
      <input id="link-currency" name="currency" type="text" required value="KES" />
      <label for="link-amount">Amount (empty: the customer enters it)</label>
      <input id="link-amount" name="amount" type="text" inputmode="decimal" />
      <button type="submit">Create link</button>
    </form>
  );
}

export const eventColumns = (env: Env, session: ConsoleSession): Column<WebhookEvent>[] => [
  {
    heading: 'Event',
    cell: (r) => (
      <>
        <strong>{r.type}</strong>
        <br />
        {code(r.id)}
      </>
    ),
  },
  { heading: 'Created', cell: (r) => text(r.created_at) },
  {
    heading: 'Webhook deliveries',
    cell: (r) =>
      r.deliveries.length === 0
        ? '—'
        : r.deliveries.map((d, i) => (
            <>
              {i > 0 ? <br /> : null}
              {code(d.url)}: {d.status} ({d.attempt_count} attempts)
            </>
          )),
  },
  {
    heading: 'Resend',
    cell: (r) => (
      <form method="post" action={`/console/events/${r.id}/resend?env=${env}`}>
        <CsrfField session={session} />
        <button type="submit" class="secondary" aria-label={`Resend ${r.id}`}>
          Resend
        </button>
      </form>
    ),
  },
];

/** The form of the CSV reports (paid payments or settlements of a date range). */
export function reportsForm(env: Env): Html {
  return (
    <form method="get" action="/console/reports/download" class="card">
      <input type="hidden" name="env" value={env} />
      <label for="report-kind">Report</label>
      <select id="report-kind" name="kind">
        <option value="payments">Paid payments</option>
        <option value="settlements">Settlements</option>
      </select>
      <label for="report-from">From (YYYY-MM-DD, UTC)</label>
      <input id="report-from" name="from" type="text" placeholder="2026-01-01" />
      <label for="report-to">To (YYYY-MM-DD, UTC)</label>
      <input id="report-to" name="to" type="text" placeholder="2026-01-31" />
      <p class="hint">Empty dates: the last 30 days.</p>
      <button type="submit">Download CSV</button>
    </form>
  );
}
