// The payments of one environment: a search by id or merchant reference, a status filter, keyset paging.
import type { PaymentIntent } from '../../payment-intents/index.js';
import { esc, page, type PageContext } from './layout.js';

/** The statuses the page filters by. */
export const STATUS_FILTERS = ['awaiting_payment', 'confirming', 'paid', 'failed', 'expired', 'cancelled', 'refunded'];

export function paymentsPage(
  ctx: PageContext,
  data: { payments: PaymentIntent[]; status?: string; q?: string; next?: string; error?: string },
): string {
  const env = ctx.env ?? 'test';
  const rows =
    data.payments.length === 0
      ? '<p>No payments match.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Payments"><table><thead><tr><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead><tbody>${data.payments
          .map(
            (p) =>
              `<tr><td><a href="/console/payments/${esc(p.id)}?env=${env}"><code>${esc(p.id)}</code></a></td><td>${esc(p.currency)} ${esc(p.amount)}</td><td><span class="status">${esc(p.status)}</span></td><td>${esc(p.merchant_reference ?? '')}</td><td>${esc(p.created_at)}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(
    ctx,
    'Payments',
    `<form method="get" action="/console/payments" class="card" role="search"><input type="hidden" name="env" value="${env}">
<label for="q">Search by payment id or merchant reference</label><input id="q" name="q" type="text" value="${esc(data.q ?? '')}">
<label for="status">Status</label><select id="status" name="status"><option value="">Any</option>${STATUS_FILTERS.map(
      (st) => `<option value="${st}"${data.status === st ? ' selected' : ''}>${st.replace('_', ' ')}</option>`,
    ).join('')}</select>
<button type="submit">Show payments</button></form>
${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}${rows}
${data.next ? `<p><a href="/console/payments?env=${env}${data.status ? `&amp;status=${esc(data.status)}` : ''}&amp;after=${esc(data.next)}">Next page</a></p>` : ''}`,
  );
}
