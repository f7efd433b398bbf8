// The payments of one environment: a search by id or merchant reference, a status filter, keyset paging.
import type { PaymentIntent } from '../../payment-intents/index.js';
import { paymentColumns } from './home-page.js';
import { page, type PageContext } from './layout.js';
import { Table } from './list-page.js';

/** The statuses the page filters by. */
export const STATUS_FILTERS = ['awaiting_payment', 'confirming', 'paid', 'failed', 'expired', 'cancelled', 'refunded'];

export function paymentsPage(
  ctx: PageContext,
  data: { payments: PaymentIntent[]; status?: string; q?: string; next?: string; error?: string },
): string {
  const env = ctx.env ?? 'test';
  return page(
    ctx,
    'Payments',
    <>
      <form method="get" action="/console/payments" class="card" role="search">
        <input type="hidden" name="env" value={env} />
        <label for="q">Search by payment id or merchant reference</label>
        <input id="q" name="q" type="text" value={data.q ?? ''} />
        <label for="status">Status</label>
        <select id="status" name="status">
          <option value="">Any</option>
          {STATUS_FILTERS.map((st) => (
            <option value={st} selected={data.status === st}>
              {st.replace('_', ' ')}
            </option>
          ))}
        </select>
        <button type="submit">Show payments</button>
      </form>
      {data.error ? (
        <p class="error" role="alert">
          {data.error}
        </p>
      ) : null}
      {data.payments.length === 0 ? (
        <p>No payments match.</p>
      ) : (
        <Table label="Payments" rows={data.payments} columns={paymentColumns(env)} />
      )}
      {data.next ? (
        <p>
          <a href={`/console/payments?env=${env}${data.status ? `&status=${data.status}` : ''}&after=${data.next}`}>Next page</a>
        </p>
      ) : null}
    </>,
  );
}
