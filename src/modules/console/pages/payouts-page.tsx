// Payouts: the owner asks for one (asset, network, address, amount and the transaction PIN) and everyone
// sees them with their states in words; in the sandbox a developer or owner can fail one (the test driver).
import type { Payout } from '../../payouts/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, Messages, type Env, type PageContext } from './layout.js';
import { code, listPage, text, type Column } from './list-page.js';

const STATUS_WORDS: Record<Payout['status'], string> = {
  requested: 'Waiting to be sent',
  sent: 'Sent, confirming',
  paid: 'Paid',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

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
    { heading: 'Amount', cell: (p) => `${p.amount} ${p.asset}` },
    { heading: 'Network', cell: (p) => p.network },
    { heading: 'To', cell: (p) => code(p.address) },
    {
      heading: 'Status',
      cell: (p) => (
        <>
          <span class="status">{STATUS_WORDS[p.status]}</span>
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
    { heading: 'Created', cell: (p) => text(p.created_at) },
    ...(env === 'test' && canFail ? [{ heading: 'Test driver', cell: (p: Payout) => <FailButton payout={p} session={s} /> }] : []),
  ];
}

function Choice({
  id,
  name,
  label,
  values,
  chosen,
}: {
  id: string;
  name: string;
  label: string;
  values: string[];
  chosen: string | undefined;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} name={name}>
        {values.map((v) => (
          <option value={v} selected={chosen === v}>
            {v}
          </option>
        ))}
      </select>
    </>
  );
}

function RequestForm({ env, session, form = {} }: { env: Env; session: ConsoleSession; form?: Record<string, string> | undefined }) {
  return (
    <form method="post" action={`/console/payouts?env=${env}`} class="card">
      <CsrfField session={session} />
      <h2>Pay out</h2>
      <Choice id="po-asset" name="asset" label="Asset" values={['USDT', 'USDC']} chosen={form['asset']} />
      <Choice id="po-network" name="network" label="Network" values={['BASE', 'POLYGON', 'TRON', 'SOLANA']} chosen={form['network']} />
      <label for="po-address">Address</label>
      <input id="po-address" name="address" required maxLength={100} autocomplete="off" value={form['address'] ?? ''} />
      <label for="po-amount">Amount</label>
      <input id="po-amount" name="amount" required inputMode="decimal" maxLength={30} value={form['amount'] ?? ''} />
      <label for="po-pin">Transaction PIN</label>
      <input id="po-pin" name="pin" type="password" inputMode="numeric" autocomplete="off" required />
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
