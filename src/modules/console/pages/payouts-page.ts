// Payouts: the owner asks for one (asset, network, address, amount and the transaction PIN) and everyone
// sees them with their states in words; in the sandbox a developer or owner can fail one (the test driver).
import type { Payout } from '../../payouts/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { csrfField, esc, type Env, type PageContext } from './layout.js';
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

function failCell(p: Payout, s: ConsoleSession): string {
  if (p.status !== 'requested' && p.status !== 'sent') return '';
  return `<form method="post" action="/console/payouts/${esc(p.id)}/fail?env=test">${csrfField(s)}<button type="submit" class="secondary" aria-label="Fail ${esc(p.id)}">Fail</button></form>`;
}

function columns(env: Env, s: ConsoleSession, canFail: boolean): Column<Payout>[] {
  return [
    { heading: 'Payout', cell: (p) => code(p.id) },
    { heading: 'Amount', cell: (p) => `${esc(p.amount)} ${esc(p.asset)}` },
    { heading: 'Network', cell: (p) => esc(p.network) },
    { heading: 'To', cell: (p) => code(p.address) },
    {
      heading: 'Status',
      cell: (p) => `<span class="status">${esc(STATUS_WORDS[p.status])}</span>${p.failure_reason ? `<br>${text(p.failure_reason)}` : ''}`,
    },
    { heading: 'Transaction', cell: (p) => code(p.tx_hash) },
    { heading: 'Created', cell: (p) => text(p.created_at) },
    ...(env === 'test' && canFail ? [{ heading: 'Test driver', cell: (p: Payout) => failCell(p, s) }] : []),
  ];
}

function option(value: string, chosen: string | undefined): string {
  return `<option value="${esc(value)}"${chosen === value ? ' selected' : ''}>${esc(value)}</option>`;
}

function requestForm(env: Env, s: ConsoleSession, form: Record<string, string> = {}): string {
  return `<form method="post" action="/console/payouts?env=${env}" class="card">${csrfField(s)}
<h2>Pay out</h2>
<label for="po-asset">Asset</label><select id="po-asset" name="asset">${['USDT', 'USDC'].map((a) => option(a, form['asset'])).join('')}</select>
<label for="po-network">Network</label><select id="po-network" name="network">${['BASE', 'POLYGON', 'TRON', 'SOLANA'].map((n) => option(n, form['network'])).join('')}</select>
<label for="po-address">Address</label><input id="po-address" name="address" required maxlength="100" autocomplete="off" value="${esc(form['address'] ?? '')}">
<label for="po-amount">Amount</label><input id="po-amount" name="amount" required inputmode="decimal" maxlength="30" value="${esc(form['amount'] ?? '')}">
<label for="po-pin">Transaction PIN</label><input id="po-pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required>
<button type="submit">Pay out</button></form>`;
}

export function payoutsPage(ctx: PageContext, s: ConsoleSession, data: PayoutsPageData): string {
  const env = ctx.env ?? 'test';
  const balances =
    data.available.length === 0
      ? '<p>Nothing to pay out yet.</p>'
      : `<p>Available: ${data.available.map((b) => `${esc(b.available)} ${esc(b.asset)}`).join(', ')}</p>`;
  const messages = `${data.notice ? `<p class="notice" role="status">${esc(data.notice)}</p>` : ''}${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}`;
  return listPage(ctx, 'Payouts', {
    rows: data.rows,
    columns: columns(env, s, data.canFail),
    empty: 'No payouts in this environment.',
    ...(data.next ? { next: data.next } : {}),
    before: `${messages}${balances}${data.canRequest ? requestForm(env, s, data.form) : ''}`,
  });
}
