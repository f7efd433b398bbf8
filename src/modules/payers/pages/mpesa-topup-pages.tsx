// Topping up by M-Pesa: the form on the wallet page (asset, whole shillings, phone) with the list of M-Pesa
// top-ups, and the page of one top-up: its locked quote with the PIN form while quoted, then the prompt sent
// to the phone, and how it ended (credited with the receipt, failed with the reason, or expired).
import { formatMoney } from '../../../shared/display.js';
import { PAYER_ASSETS } from '../../ledger/index.js';
import type { PayerSession } from '../payer-auth.service.js';
import { TOPUP_MAX_KES, TOPUP_MIN_KES, type MpesaTopupView } from '../mpesa-topups.service.js';
import { CsrfField, walletPage, type WalletContext } from './layout.js';
import { ScrollTable } from './scroll-table.js';

const when = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
const shillings = (kes: number) => `KES ${kes.toLocaleString('en')}`;
const assetAmount = (t: MpesaTopupView) => formatMoney(t.asset_amount, t.asset);

const STATUS_WORDS: Record<MpesaTopupView['status'], string> = {
  quoted: 'Quote: waiting for your PIN',
  pending: 'Sent to your phone',
  credited: 'Credited',
  failed: 'Failed',
  expired: 'Quote expired',
};

function TopupRows({ topups }: { topups: MpesaTopupView[] }) {
  if (topups.length === 0) return <p>No M-Pesa top-ups yet.</p>;
  return (
    <ScrollTable
      label="M-Pesa top-ups"
      caption="Your latest M-Pesa top-ups, newest first"
      columns={['When', 'Paid', 'Added', 'Status', 'Details']}
    >
      {topups.map((t) => (
        <tr>
          <td>{when(t.created_at)}</td>
          <td>{shillings(t.kes_amount)}</td>
          <td>{t.status === 'credited' ? `+${formatMoney(t.credited_amount!, t.asset)}` : assetAmount(t)}</td>
          <td>
            <a href={`/wallet/topups/mpesa/${t.id}`}>{STATUS_WORDS[t.status]}</a>
          </td>
          <td>{t.status === 'credited' ? (t.mpesa_receipt ?? '') : (t.failure_reason ?? '')}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}

/** The wallet page's section: the form that asks for a quote, and the latest top-ups. */
export function MpesaTopupSection({ session, topups }: { session: PayerSession; topups: MpesaTopupView[] }) {
  return (
    <section class="card" aria-labelledby="h-mpesa-topup">
      <h2 id="h-mpesa-topup">Top up by M-Pesa</h2>
      <form method="post" action="/wallet/topups/mpesa">
        <CsrfField token={session.csrf} />
        <label for="mpesa-topup-asset">Add to</label>
        <select id="mpesa-topup-asset" name="asset">
          {PAYER_ASSETS.map((a) => (
            <option value={a}>{a}</option>
          ))}
        </select>
        <label for="mpesa-topup-kes">Amount in Kenyan shillings</label>
        <input id="mpesa-topup-kes" name="kes" type="text" inputmode="numeric" required aria-describedby="mpesa-topup-kes-hint" />
        <p class="hint" id="mpesa-topup-kes-hint">
          {`Whole shillings, ${TOPUP_MIN_KES} to ${TOPUP_MAX_KES.toLocaleString('en')}.`}
        </p>
        <label for="mpesa-topup-phone">M-Pesa phone number</label>
        <input id="mpesa-topup-phone" name="phone" type="tel" autocomplete="tel" required aria-describedby="mpesa-topup-phone-hint" />
        <p class="hint" id="mpesa-topup-phone-hint">
          For example 0712345678. You see the rate and what you get before you confirm with your PIN.
        </p>
        <button type="submit">Get a quote</button>
      </form>
      <TopupRows topups={topups} />
    </section>
  );
}

function QuoteFacts({ t }: { t: MpesaTopupView }) {
  return (
    <dl class="kv">
      <dt>You pay</dt>
      <dd id="quote-kes">{`${shillings(t.kes_amount)} by M-Pesa from ${t.phone}`}</dd>
      <dt>You get</dt>
      <dd id="quote-amount">{assetAmount(t)}</dd>
      <dt>Rate</dt>
      <dd id="quote-rate">{`${t.rate} KES per ${t.asset}`}</dd>
      <dt>Quote valid until</dt>
      <dd id="quote-expires">{when(t.quote_expires_at)}</dd>
    </dl>
  );
}

function Outcome({ t, session }: { t: MpesaTopupView; session: PayerSession }) {
  switch (t.status) {
    case 'quoted':
      return (
        <form method="post" action={`/wallet/topups/mpesa/${t.id}/confirm`}>
          <CsrfField token={session.csrf} />
          <label for="topup-pin">Transaction PIN</label>
          <input id="topup-pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required maxLength={6} />
          <p class="hint">The M-Pesa prompt is sent to your phone only after your PIN is checked.</p>
          <button type="submit">Confirm and send the M-Pesa prompt</button>
        </form>
      );
    case 'pending':
      return (
        <p role="status">
          {`Check your phone: enter your M-Pesa PIN on the prompt for ${shillings(t.kes_amount)}. `}
          <a href={`/wallet/topups/mpesa/${t.id}`}>Reload</a> to see the result.
        </p>
      );
    case 'credited':
      return (
        <p class="notice" role="status">
          {`Added ${formatMoney(t.credited_amount!, t.asset)} to your balance.${t.mpesa_receipt ? ` M-Pesa receipt ${t.mpesa_receipt}.` : ''}`}
        </p>
      );
    case 'failed':
      return <p class="error">{`This top-up failed: ${t.failure_reason ?? 'M-Pesa did not take the payment.'}`}</p>;
    case 'expired':
      return (
        <p class="error">{`This quote expired at ${when(t.quote_expires_at)}; nothing was sent to your phone. Ask for a new quote.`}</p>
      );
  }
}

/** One top-up: its quote, then what became of it. */
export function mpesaTopupPage(ctx: WalletContext & { session: PayerSession }, t: MpesaTopupView, error?: string): string {
  return walletPage(
    ctx,
    'Top up by M-Pesa',
    <>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <section class="card" aria-labelledby="h-quote">
        <h2 id="h-quote">{t.status === 'quoted' ? 'Your quote' : STATUS_WORDS[t.status]}</h2>
        <QuoteFacts t={t} />
        <Outcome t={t} session={ctx.session} />
      </section>
      <p>
        <a href="/wallet">Back to your wallet</a>
      </p>
    </>,
  );
}
