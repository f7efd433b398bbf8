// One payment: its fields, the PIN refund of a balance payment (owners), the sandbox driver, the timeline of
// its events with their webhook deliveries and attempts, its pay attempts and its rails' attempts.
import type { PaymentIntent } from '../../payment-intents/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, Messages, page, type PageContext } from './layout.js';
import { Table, type Column } from './list-page.js';

export interface TimelineEvent {
  id: string;
  type: string;
  created_at: string;
  deliveries: Array<{
    id: string;
    url: string;
    status: string;
    attempts?: Array<{
      attempt: number;
      outcome: string;
      status_code: number | null;
      error: string | null;
      started_at: string;
      duration_ms: number | null;
    }>;
  }>;
}

export const DRIVER_OUTCOMES = [
  'success',
  'attempt_failed',
  'failed',
  'underpaid',
  'overpaid',
  'review',
  'expired',
  'cancelled',
  'duplicate',
  'dispute',
  'dispute_won',
  'dispute_lost',
];
export const DRIVER_METHODS = ['service_balance', 'mpesa', 'card', 'paypal', 'external_wallet'];

type PayAttempt = {
  id: string;
  payment_method: string;
  outcome: string;
  amount: string;
  asset: string;
  failure_code: string | null;
  created_at: number;
};
type RailAttempt = {
  id: string;
  method: string;
  state: string;
  failure_code: string | null;
  provider_reference: string | null;
  created_at: number;
};

export interface PaymentPageData {
  payment: PaymentIntent;
  events: TimelineEvent[];
  attempts: PayAttempt[];
  /** The rails' own attempts (an STK push, a PayPal approval, a card charge) with their state. */
  railAttempts: RailAttempt[];
  canDrive: boolean;
  /** The owner may refund this balance payment with the PIN. */
  canPinRefund?: boolean;
  notice?: string;
  error?: string;
}

function Delivery({ d }: { d: TimelineEvent['deliveries'][number] }) {
  return (
    <li>
      Webhook to <code>{d.url}</code>: <span class="status">{d.status}</span>
      {d.attempts && d.attempts.length > 0 ? (
        <ul>
          {d.attempts.map((a) => (
            <li>
              Attempt {a.attempt}: {a.outcome}
              {a.status_code === null ? '' : ` (HTTP ${a.status_code})`}
              {a.error ? ` — ${a.error}` : ''}{' '}
              <span class="hint">
                {a.started_at}
                {a.duration_ms === null ? '' : `, ${a.duration_ms} ms`}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function Timeline({ events }: { events: TimelineEvent[] }) {
  if (events.length === 0) return <p>No events.</p>;
  return (
    <ol class="timeline">
      {events.map((e) => (
        <li>
          <p>
            <strong>{e.type}</strong>{' '}
            <span class="hint">
              {e.created_at} · <code>{e.id}</code>
            </span>
          </p>
          {e.deliveries.length === 0 ? (
            <p class="hint">No webhook endpoint subscribed.</p>
          ) : (
            <ul>
              {e.deliveries.map((d) => (
                <Delivery d={d} />
              ))}
            </ul>
          )}
        </li>
      ))}
    </ol>
  );
}

const PAY_ATTEMPT_COLUMNS: Column<PayAttempt>[] = [
  { heading: 'When', cell: (a) => new Date(Number(a.created_at)).toISOString() },
  { heading: 'Method', cell: (a) => a.payment_method },
  { heading: 'Outcome', cell: (a) => a.outcome },
  { heading: 'Amount', cell: (a) => `${a.amount} ${a.asset}` },
  { heading: 'Failure', cell: (a) => a.failure_code ?? '' },
];

const RAIL_ATTEMPT_COLUMNS: Column<RailAttempt>[] = [
  { heading: 'When', cell: (r) => new Date(r.created_at).toISOString() },
  { heading: 'Method', cell: (r) => r.method },
  { heading: 'State', cell: (r) => r.state },
  { heading: 'Failure', cell: (r) => r.failure_code ?? '' },
  { heading: 'Provider reference', cell: (r) => r.provider_reference ?? '' },
];

function DriverForm({ p, s }: { p: PaymentIntent; s: ConsoleSession }) {
  return (
    <section class="card" aria-labelledby="h-driver">
      <h2 id="h-driver">Sandbox: drive this payment</h2>
      <form method="post" action={`/console/payments/${p.id}/simulate?env=test`}>
        <CsrfField session={s} />
        <label for="outcome">Outcome</label>
        <select id="outcome" name="outcome">
          {DRIVER_OUTCOMES.map((o) => (
            <option value={o}>{o.replace('_', ' ')}</option>
          ))}
        </select>
        <label for="payment_method">Payment method</label>
        <select id="payment_method" name="payment_method">
          {p.payment_methods.map((m) => (
            <option value={m}>{m.replace('_', ' ')}</option>
          ))}
        </select>
        <button type="submit">Apply outcome</button>
      </form>
    </section>
  );
}

function PinRefundForm({ ctx, p, s }: { ctx: PageContext; p: PaymentIntent; s: ConsoleSession }) {
  return (
    <section class="card" aria-labelledby="h-refund">
      <h2 id="h-refund">Refund this balance payment</h2>
      <form method="post" action={`/console/payments/${p.id}/refund?env=${ctx.env ?? 'test'}`}>
        <CsrfField session={s} />
        <label for="refund-pin">Transaction PIN</label>
        <input id="refund-pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required />
        <button type="submit">
          Refund {p.currency} {p.amount}
        </button>
      </form>
    </section>
  );
}

export function paymentPage(ctx: PageContext, data: PaymentPageData): string {
  const p = data.payment;
  const s = ctx.session!;
  const fields: Array<[string, string | null]> = [
    ['Status', p.status],
    ['Amount', `${p.currency} ${p.amount}`],
    ['Pays', `${p.pay_amount} ${p.settlement_currency}`],
    ['Received', `${p.amount_received} ${p.settlement_currency}`],
    ['Method', p.payment_method],
    ['Merchant reference', p.merchant_reference],
    ['Provider reference', p.provider_reference],
    ['Created', p.created_at],
    ['Expires', p.expires_at],
  ];
  return page(
    ctx,
    `Payment ${p.id}`,
    <>
      <Messages notice={data.notice} error={data.error} />
      <div class="card">
        <dl class="kv">
          {fields.map(([k, v]) => (
            <>
              <dt>{k}</dt>
              <dd>{v ?? '—'}</dd>
            </>
          ))}
        </dl>
      </div>
      {data.canPinRefund ? <PinRefundForm ctx={ctx} p={p} s={s} /> : null}
      {data.canDrive ? <DriverForm p={p} s={s} /> : null}
      <section aria-labelledby="h-timeline">
        <h2 id="h-timeline">Timeline</h2>
        <Timeline events={data.events} />
      </section>
      <section aria-labelledby="h-attempts">
        <h2 id="h-attempts">Pay attempts</h2>
        {data.attempts.length === 0 ? (
          <p>No pay attempts yet.</p>
        ) : (
          <Table label="Pay attempts" rows={data.attempts} columns={PAY_ATTEMPT_COLUMNS} />
        )}
      </section>
      <section aria-labelledby="h-rail">
        <h2 id="h-rail">Rail attempts</h2>
        {data.railAttempts.length === 0 ? (
          <p>No rail attempts.</p>
        ) : (
          <Table label="Rail attempts" rows={data.railAttempts} columns={RAIL_ATTEMPT_COLUMNS} />
        )}
      </section>
    </>,
  );
}
