// The console's home (balances, the latest payments and, in the sandbox, its clock) and the page shown on
// the live side until the business is verified.
import type { BalanceEntry } from '../../balances/index.js';
import type { PaymentIntent } from '../../payment-intents/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, page, type Html, type PageContext } from './layout.js';
import { Table, type Column } from './list-page.js';

/** The columns of a list of payments (the home page's latest and the payments page). */
export const paymentColumns = (env: string): Column<PaymentIntent>[] => [
  {
    heading: 'Payment',
    cell: (p) => (
      <a href={`/console/payments/${p.id}?env=${env}`}>
        <code>{p.id}</code>
      </a>
    ),
  },
  { heading: 'Amount', cell: (p) => `${p.currency} ${p.amount}` },
  { heading: 'Status', cell: (p) => <span class="status">{p.status}</span> },
  { heading: 'Reference', cell: (p) => p.merchant_reference ?? '' },
  { heading: 'Created', cell: (p) => p.created_at },
];

function Balances({ balances }: { balances: BalanceEntry[] }) {
  if (balances.length === 0) return <p>No money yet in this environment.</p>;
  return (
    <div class="balances">
      {balances.map((b) => (
        <div class="card">
          <h3>{b.asset}</h3>
          <dl class="kv">
            <dt>Available</dt>
            <dd>{b.available}</dd>
            <dt>Total</dt>
            <dd>{b.total}</dd>
          </dl>
        </div>
      ))}
    </div>
  );
}

function LiveMethods({ methods }: { methods: string[] }) {
  return (
    <section aria-labelledby="h-live-methods">
      <h2 id="h-live-methods">Live payment methods</h2>
      <p id="live-methods">{methods.length === 0 ? 'None is configured yet: the operator turns them on.' : `On: ${methods.join(', ')}.`}</p>
    </section>
  );
}

export function homePage(
  ctx: PageContext,
  data: { balances: BalanceEntry[]; payments: PaymentIntent[]; clock?: Html; prices?: Html; liveMethods?: string[] },
): string {
  return page(
    ctx,
    'Home',
    <>
      <section aria-labelledby="h-balances">
        <h2 id="h-balances">Balances</h2>
        <Balances balances={data.balances} />
      </section>
      <section aria-labelledby="h-payments">
        <h2 id="h-payments">Recent payments</h2>
        {data.payments.length === 0 ? (
          <p>No payments yet in this environment.</p>
        ) : (
          <Table label="Recent payments" caption="The 10 most recent" rows={data.payments} columns={paymentColumns(ctx.env ?? 'test')} />
        )}
      </section>
      {data.liveMethods === undefined ? null : <LiveMethods methods={data.liveMethods} />}
      {data.prices}
      {data.clock}
    </>,
  );
}

export function liveClosedPage(ctx: PageContext, status: string, reason: string | null): string {
  return page(
    ctx,
    'Live payments',
    <div class="card">
      <p>
        Live payments open once your business is verified. Verification status: <strong>{status.replace('_', ' ')}</strong>.
      </p>
      {reason ? <p>Why it was refused: {reason}</p> : null}
      <p>
        <a href="/console/verification">Business verification</a>
      </p>
    </div>,
  );
}

/** The sandbox clock on the home page: its time, and a form moving it forward. */
export function clockForm(s: ConsoleSession, now: string): Html {
  return (
    <section class="card" aria-labelledby="h-clock">
      <h2 id="h-clock">Sandbox clock</h2>
      <p>
        Sandbox time: <strong id="sandbox-now">{now}</strong>
      </p>
      <form method="post" action="/console/sandbox/clock?env=test">
        <CsrfField session={s} />
        <label for="seconds">Move forward by (seconds)</label>
        <input id="seconds" name="seconds" type="text" inputmode="numeric" required aria-describedby="seconds-hint" />
        <p class="hint" id="seconds-hint">
          3600 is an hour, 86400 a day. Expiry and settlements follow at once.
        </p>
        <button type="submit">Advance the clock</button>
      </form>
    </section>
  );
}
