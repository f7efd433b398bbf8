// The wallet's on-chain top-up: a form (amount, asset, and one of the configured networks) and every
// top-up still waiting for its transfer, with the network's address and the exact amount to send (the
// last decimals are what tells this top-up apart), its token and until when it is matched.
import { PAYER_ASSETS } from '../../ledger/index.js';
import type { PayerSession } from '../payer-auth.service.js';
import type { TopupView } from '../chain-topups.service.js';
import { CsrfField } from './layout.js';

export interface TopupSectionOptions {
  networks: { id: string; name: string }[];
  waiting: TopupView[];
  /** What the payer typed, shown again with a form error. */
  form?: { amount?: string; asset?: string; network?: string };
  /** Top-ups exist on live wallets only. */
  live: boolean;
}

const when = (ms: number) => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;

function Waiting({ topups }: { topups: TopupView[] }) {
  if (topups.length === 0) return null;
  return (
    <ul class="topups" role="list" aria-label="Top-ups waiting for your transfer">
      {topups.map((t) => (
        <li id={`topup-${t.id}`}>
          <p>
            Send exactly <strong class="topup-amount">{`${t.amount} ${t.asset}`}</strong> on <strong>{t.networkName}</strong> to{' '}
            <code class="topup-address">{t.address}</code>
          </p>
          <p class="hint">
            {t.token ? (
              <>
                Token: <code>{t.token}</code>.{' '}
              </>
            ) : null}
            {`Matched until ${when(t.expiresAt)}; a different amount is not credited automatically.`}
          </p>
          <p class="topup-state" role="status">
            {t.transferSeen ? 'Transfer seen: waiting for the network’s confirmations.' : 'Waiting for your transfer.'}
          </p>
        </li>
      ))}
    </ul>
  );
}

export function TopupSection({ session, opts }: { session: PayerSession; opts: TopupSectionOptions }) {
  const body = !opts.live ? (
    <p>On-chain top-ups are for live wallets; the sandbox has no chain.</p>
  ) : opts.networks.length === 0 ? (
    <p>No network is configured for top-ups on this server yet.</p>
  ) : (
    <>
      <Waiting topups={opts.waiting} />
      <form method="post" action="/wallet/topups/chain">
        <CsrfField token={session.csrf} />
        <label for="topup-amount">Amount</label>
        <input id="topup-amount" name="amount" type="text" inputmode="decimal" required value={opts.form?.amount ?? ''} />
        <label for="topup-asset">Asset</label>
        <select id="topup-asset" name="asset">
          {PAYER_ASSETS.map((a) => (
            <option value={a} selected={opts.form?.asset === a}>
              {a}
            </option>
          ))}
        </select>
        <label for="topup-network">Network</label>
        <select id="topup-network" name="network">
          {opts.networks.map((n) => (
            <option value={n.id} selected={opts.form?.network === n.id}>
              {n.name}
            </option>
          ))}
        </select>
        <button type="submit">Get the address and exact amount</button>
      </form>
    </>
  );
  return (
    <section class="card" aria-labelledby="h-topup">
      <h2 id="h-topup">Add funds on-chain</h2>
      {body}
    </section>
  );
}
