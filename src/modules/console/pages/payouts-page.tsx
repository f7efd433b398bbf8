// Payouts: the owner asks for one (asset, network, address, amount and the transaction PIN) and everyone
// sees them with their states in words; in the sandbox a developer or owner can fail one (the test driver).
import { PAYOUT_ASSETS, PAYOUT_STATUS_WORDS, PayoutFields, type Payout } from '../../payouts/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, Messages, Money, When, type Env, type PageContext } from './layout.js';
import { code, listPage, text, type Column } from './list-page.js';

export interface PayoutsPageData {
  rows: Payout[];
  next?: string;
  /** Available balances by asset, shown above the form. */
  available: ReadonlyArray<{ asset: string; available: string }>;
  canRequest: boolean;
  canFail: boolean;
  notice?: string;
  error?: string;
  /** What the owner typed, shown again after a refusal (never the PIN). */
  form?: Record<string, string>;
}

function FailButton({ payout, session }: { payout: Payout; session: ConsoleSession }) {
  if (payout.status !== 'requested' && payout.status !== 'sent') return null;
  return (
    <form method="post" action={`/console/payouts/${payout.id}/fail?env=test`}>
      <CsrfField session={session} />
      <button type="submit" class="secondary" aria-label={`Fail ${payout.id}`}>
        Fail
      </button>
    </form>
  );
}

function columns(env: Env, s: ConsoleSession, canFail: boolean): Column<Payout>[] {
  return [
    { heading: 'Payout', cell: (p) => code(p.id) },
    { heading: 'Amount', cell: (p) => <Money amount={p.amount} unit={p.asset} /> },
    { heading: 'Network', cell: (p) => p.network },
    { heading: 'To', cell: (p) => code(p.address) },
    {
      heading: 'Status',
      cell: (p) => (
        <>
          <span class="status" data-status={p.status}>
            {PAYOUT_STATUS_WORDS[p.status]}
          </span>
          {p.failure_reason ? (
            <>
              <br />
              {text(p.failure_reason)}
            </>
          ) : null}
        </>
      ),
    },
    { heading: 'Transaction', cell: (p) => code(p.tx_hash) },
    { heading: 'Created', cell: (p) => <When t={p.created_at} />, time: true },
    ...(env === 'test' && canFail ? [{ heading: 'Test driver', cell: (p: Payout) => <FailButton payout={p} session={s} /> }] : []),
  ];
}

function RequestForm({ env, session, form = {} }: { env: Env; session: ConsoleSession; form?: Record<string, string> | undefined }) {
  return (
    <form method="post" action={`/console/payouts?env=${env}`} class="card">
      <CsrfField session={session} />
      <h2>Pay out</h2>
      <PayoutFields prefix="po" form={form} assets={PAYOUT_ASSETS} />
      <button type="submit">Pay out</button>
    </form>
  );
}

export function payoutsPage(ctx: PageContext, s: ConsoleSession, data: PayoutsPageData): string {
  const env = ctx.env ?? 'test';
  return listPage(ctx, 'Payouts', {
    rows: data.rows,
    columns: columns(env, s, data.canFail),
    empty: 'No payouts in this environment.',
    ...(data.next ? { next: data.next } : {}),
    before: (
      <>
        <Messages notice={data.notice} error={data.error} />
        {data.available.length === 0 ? (
          <p>Nothing to pay out yet.</p>
        ) : (
          <p>Available: {data.available.map((b) => `${b.available} ${b.asset}`).join(', ')}</p>
        )}
        {data.canRequest ? <RequestForm env={env} session={s} form={data.form} /> : null}
      </>
    ),
  });
}
