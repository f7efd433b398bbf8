// The payments of one environment: one search box (an id or reference prefix, a customer's email or phone,
// an exact amount), filters by days (in the merchant's time zone), status and method, keyset paging, and
// the CSV of exactly what the filter shows.
import { methodWords, statusWords } from '../../../shared/display.js';
import type { PaymentIntent } from '../../payment-intents/index.js';
import { PAYMENT_METHODS, PAYMENT_STATUSES, type ReadFilter } from '../payment-search.service.js';
import { paymentColumns } from './home-page.js';
import { page, ZoneName, type PageContext } from './layout.js';
import { Table } from './list-page.js';

/** The statuses the page filters by. */
export const STATUS_FILTERS = PAYMENT_STATUSES;

/** The filter's query string (without the environment or the page). */
export function filterQuery(shown: ReadFilter['shown']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(shown)) if (v) params.set(k, v);
  const q = params.toString();
  return q ? `&${q}` : '';
}

function FilterForm({ env, shown }: { env: string; shown: ReadFilter['shown'] }) {
  return (
    <form method="get" action="/console/payments" class="card filters" role="search">
      <input type="hidden" name="env" value={env} />
      <label for="q">Search</label>
      <input id="q" name="q" type="search" value={shown.q} aria-describedby="q-hint" />
      <p class="hint" id="q-hint">
        A payment id or reference (or their start), a customer’s email or phone, or an exact amount.
      </p>
      <div class="row">
        <div>
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="">Any</option>
            {STATUS_FILTERS.map((st) => (
              <option value={st} selected={shown.status === st}>
                {statusWords(st)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="method">Method</label>
          <select id="method" name="method">
            <option value="">Any</option>
            {PAYMENT_METHODS.map((m) => (
              <option value={m} selected={shown.method === m}>
                {methodWords(m)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="from">From</label>
          <input id="from" name="from" type="date" value={shown.from} />
        </div>
        <div>
          <label for="to">To</label>
          <input id="to" name="to" type="date" value={shown.to} />
        </div>
      </div>
      <p class="hint">
        Days in <ZoneName />.
      </p>
      <button type="submit">Show payments</button> <a href={`/console/payments?env=${env}`}>Clear</a>
    </form>
  );
}

export function paymentsPage(
  ctx: PageContext,
  data: { payments: PaymentIntent[]; shown: ReadFilter['shown']; next?: string; error?: string },
): string {
  const env = ctx.env ?? 'test';
  const query = filterQuery(data.shown);
  return page(
    ctx,
    'Payments',
    <>
      <FilterForm env={env} shown={data.shown} />
      {data.error ? (
        <p class="error" role="alert">
          {data.error}
        </p>
      ) : null}
      <p>
        <a href={`/console/payments/export.csv?env=${env}${query}`} download>
          Download these payments (CSV)
        </a>
      </p>
      {data.payments.length === 0 ? (
        <p>No payments match.</p>
      ) : (
        <Table label="Payments" rows={data.payments} columns={paymentColumns(env)} />
      )}
      {data.next ? (
        <p>
          <a href={`/console/payments?env=${env}${query}&after=${data.next}`}>Next page</a>
        </p>
      ) : null}
    </>,
  );
}
