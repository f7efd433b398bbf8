// The wallet itself: the balance of each asset, every credit and debit (newest first; the table scrolls on
// a phone), and two-step sign-in (set up with a QR code and the key, confirmed with a code, turned off with
// the password).
import type { Decimal } from '../../../shared/money.js';
import { PAYER_ASSETS, type PayerAsset } from '../../ledger/index.js';
import type { PayerSession } from '../payer-auth.service.js';
import type { Payout } from '../../payouts/index.js';
import { CsrfField, Messages, Money, walletPage, type WalletContext } from './layout.js';
import type { MpesaTopupView } from '../mpesa-topups.service.js';
import { MpesaTopupSection } from './mpesa-topup-pages.js';
import { ScrollTable } from './scroll-table.js';
import { TopupSection, type TopupSectionOptions } from './topup-section.js';
import { WithdrawalsSection } from './withdrawals-section.js';

const KIND_WORDS: Record<string, string> = {
  top_up: 'Top-up',
  payment: 'Payment',
  refund: 'Refund',
  adjustment: 'Adjustment by the operator',
  withdrawal: 'Withdrawal (held until sent)',
  withdrawal_reversal: 'Withdrawal returned',
};

export interface WalletMovement {
  id: string;
  kind: string;
  asset: PayerAsset;
  amount: Decimal;
  payment_intent: string | null;
  reason: string | null;
  created_at: number;
}

export interface WalletPageOptions {
  balances: Record<PayerAsset, Decimal>;
  movements: WalletMovement[];
  notice?: string;
  error?: string;
  totpSetup?: { secret: string; qr: string };
  /** Shown once, just after two-step sign-in was turned on. */
  recoveryCodes?: string[];
  /** The M-Pesa top-up form and the latest top-ups, when M-Pesa top-ups are on. */
  mpesaTopups?: MpesaTopupView[];
  topup?: TopupSectionOptions;
  /** What a movement came from, when it says more than its kind (an on-chain top-up's network and transaction). */
  details?: Record<string, string>;
  /** The payer's withdrawals, newest first. */
  withdrawals?: Payout[];
  /** What the withdrawal form held before a refusal (never the PIN). */
  withdrawalForm?: Record<string, string>;
}

const when = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

function Movements({ movements, details }: { movements: WalletMovement[]; details: Record<string, string> }) {
  if (movements.length === 0) return <p>No movements yet.</p>;
  return (
    <ScrollTable label="Movements" caption="Every credit and debit, newest first" columns={['When', 'What', 'Amount', 'Details']}>
      {movements.map((m) => (
        <tr>
          <td>{when(m.created_at)}</td>
          <td>{KIND_WORDS[m.kind] ?? m.kind}</td>
          <td>
            {m.amount.isNegative() ? '-' : '+'}
            <Money amount={m.amount.abs().toFixed()} unit={m.asset} />
          </td>
          <td>{m.payment_intent ? <code>{m.payment_intent}</code> : (details[m.id] ?? m.reason ?? '')}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}

function RecoveryCodes({ codes }: { codes: string[] | undefined }) {
  if (!codes) return null;
  return (
    <>
      <p>Keep these recovery codes somewhere safe: each signs you in once instead of a code from the app. They are shown only now.</p>
      <ul id="recovery-codes">
        {codes.map((c) => (
          <li>
            <code>{c}</code>
          </li>
        ))}
      </ul>
    </>
  );
}

function TwoStep({ session, opts }: { session: PayerSession; opts: WalletPageOptions }) {
  const setup = opts.totpSetup;
  const body = session.payer.totp ? (
    <>
      <p>
        Two-step sign-in is <strong>on</strong>.
      </p>
      <RecoveryCodes codes={opts.recoveryCodes} />
      <form method="post" action="/wallet/totp/disable">
        <CsrfField token={session.csrf} />
        <label for="totp-off-password">Password</label>
        <input id="totp-off-password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Turn off two-step sign-in</button>
      </form>
    </>
  ) : setup ? (
    <>
      <p>Scan this code with an authenticator app, or type the key, then enter the 6-digit code it shows.</p>
      <img src={setup.qr} alt="QR code of your two-step sign-in key" width={180} height={180} />
      <p>
        Key: <code id="totp-secret">{setup.secret}</code>
      </p>
      <form method="post" action="/wallet/totp/confirm">
        <CsrfField token={session.csrf} />
        <label for="totp-code">Code from the app</label>
        <input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required />
        <button type="submit">Turn on two-step sign-in</button>
      </form>
    </>
  ) : (
    <>
      <p>Two-step sign-in is off.</p>
      <form method="post" action="/wallet/totp/start">
        <CsrfField token={session.csrf} />
        <button type="submit">Set up two-step sign-in</button>
      </form>
    </>
  );
  return (
    <section class="card" aria-labelledby="h-totp">
      <h2 id="h-totp">Two-step sign-in</h2>
      {body}
    </section>
  );
}

export function walletHomePage(ctx: WalletContext & { session: PayerSession }, opts: WalletPageOptions): string {
  return walletPage(
    ctx,
    'Your wallet',
    <>
      <Messages notice={opts.notice} error={opts.error} />
      <section class="card" aria-labelledby="h-balances">
        <h2 id="h-balances">Balances</h2>
        <ul class="balances" role="list">
          {PAYER_ASSETS.map((a) => (
            <li>
              <strong id={`balance-${a}`}>
                <Money amount={opts.balances[a].toFixed()} unit={a} />
              </strong>
            </li>
          ))}
        </ul>
        <p class="hint">Pay any checkout that offers "Account balance" with these funds and your transaction PIN.</p>
      </section>
      {opts.topup ? <TopupSection session={ctx.session} opts={opts.topup} /> : null}
      {opts.mpesaTopups ? <MpesaTopupSection session={ctx.session} topups={opts.mpesaTopups} /> : null}
      <WithdrawalsSection
        csrf={ctx.session.csrf}
        withdrawals={opts.withdrawals ?? []}
        {...(opts.withdrawalForm ? { form: opts.withdrawalForm } : {})}
      />
      <section class="card" aria-labelledby="h-movements">
        <h2 id="h-movements">Movements</h2>
        <Movements movements={opts.movements} details={opts.details ?? {}} />
      </section>
      <TwoStep session={ctx.session} opts={opts} />
    </>,
  );
}
