// One payment: its fields, the PIN refund of a balance payment (owners), the sandbox driver, the timeline of
// its events with their webhook deliveries and attempts, its pay attempts and its rails' attempts.
import type { PaymentIntent } from '../../payment-intents/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { methodWords } from '../../../shared/display.js';
import { CsrfField, Messages, Money, page, Status, When, type Html, type PageContext } from './layout.js';
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
                <When t={a.started_at} />
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
              <When t={e.created_at} zone /> · <code>{e.id}</code>
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
  { heading: 'When', cell: (a) => <When t={Number(a.created_at)} />, time: true },
  { heading: 'Method', cell: (a) => methodWords(a.payment_method) },
  { heading: 'Outcome', cell: (a) => a.outcome },
  { heading: 'Amount', cell: (a) => <Money amount={a.amount} unit={a.asset} /> },
  { heading: 'Failure', cell: (a) => a.failure_code ?? '' },
];

const RAIL_ATTEMPT_COLUMNS: Column<RailAttempt>[] = [
  { heading: 'When', cell: (r) => <When t={r.created_at} />, time: true },
  { heading: 'Method', cell: (r) => methodWords(r.method) },
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
      <p>The customer gets all of it back at once. Check the amount: a refund cannot be undone.</p>
      <form method="post" action={`/console/payments/${p.id}/refund?env=${ctx.env ?? 'test'}`}>
        <CsrfField session={s} />
        <label for="refund-pin">Transaction PIN</label>
        <input id="refund-pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required />
        <div class="confirm">
          <input id="refund-confirm" name="confirm" type="checkbox" value="yes" required />
          <label for="refund-confirm">
            Yes, refund <Money amount={p.amount} unit={p.currency} /> to the customer
          </label>
        </div>
        <button type="submit">
          Refund <Money amount={p.amount} unit={p.currency} />
        </button>
      </form>
    </section>
  );
}

/** The payment's chargeback: its state, reason, amount and times. */
function Dispute({ p }: { p: PaymentIntent }) {
  const d = p.dispute;
  if (!d) return null;
  const words: Record<string, string> = {
    open: 'Open: the settlement is frozen until the provider decides.',
    won: 'Won: the money stays yours.',
    lost: 'Lost: the amount left your balance.',
  };
  return (
    <section class="card" aria-labelledby="h-dispute" id="dispute">
      <h2 id="h-dispute">Dispute</h2>
      <dl class="kv">
        <dt>Status</dt>
        <dd>
          <Status status={d.status} /> {words[d.status] ?? ''}
        </dd>
        <dt>Reason</dt>
        <dd>{d.reason ?? '—'}</dd>
        <dt>Amount</dt>
        <dd>
          <Money amount={d.amount} unit={d.currency} />
        </dd>
        <dt>Opened</dt>
        <dd>
          <When t={d.opened_at} zone />
        </dd>
        <dt>Closed</dt>
        <dd>
          <When t={d.closed_at} zone />
        </dd>
      </dl>
    </section>
  );
}

export function paymentPage(ctx: PageContext, data: PaymentPageData): string {
  const p = data.payment;
  const s = ctx.session!;
  const fields: Array<[string, Html]> = [
    ['Status', <Status status={p.status} />],
    ['Amount', <Money amount={p.amount} unit={p.currency} />],
    ['Pays', <Money amount={p.pay_amount} unit={p.settlement_currency} />],
    ['Received', <Money amount={p.amount_received} unit={p.settlement_currency} />],
    ['Method', p.payment_method ? methodWords(p.payment_method) : null],
    ['Merchant reference', p.merchant_reference],
    ['Provider reference', p.provider_reference],
    ['Created', <When t={p.created_at} zone />],
    ['Expires', <When t={p.expires_at} zone />],
  ];
  return page(
    ctx,
    'Payment',
    <>
      <p class="payment-id">
        <code>{p.id}</code>
      </p>
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
      <Dispute p={p} />
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
