// The wallet's withdrawals: the form that takes money out to an address (asset, network, address, amount and
// the transaction PIN; the payout form's own fields) and every withdrawal with its state and transaction
// hash, newest first (the table scrolls on a phone).
import { PAYOUT_STATUS_WORDS, PayoutFields, type Payout } from '../../payouts/index.js';
import { PAYER_ASSETS } from '../../ledger/index.js';
import { newRequestKey } from '../payer-withdrawals.service.js';
import { CsrfField } from './layout.js';
import { ScrollTable } from './scroll-table.js';

function WithdrawalRows({ withdrawals }: { withdrawals: Payout[] }) {
  if (withdrawals.length === 0) return <p>No withdrawals yet.</p>;
  return (
    <ScrollTable label="Withdrawals" caption="Your withdrawals, newest first" columns={['When', 'Amount', 'To', 'Status', 'Transaction']}>
      {withdrawals.map((w) => (
        <tr data-payout={w.id}>
          <td>{`${w.created_at.replace('T', ' ').slice(0, 16)} UTC`}</td>
          <td>{`${w.amount} ${w.asset}`}</td>
          <td>
            {`${w.network} `}
            <code>{w.address}</code>
          </td>
          <td>
            <span class="status" data-status={w.status}>
              {PAYOUT_STATUS_WORDS[w.status]}
            </span>
            {w.failure_reason ? ` (${w.failure_reason})` : ''}
          </td>
          <td>{w.tx_hash ? <code>{w.tx_hash}</code> : ''}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}

export function WithdrawalsSection({ csrf, withdrawals, form }: { csrf: string; withdrawals: Payout[]; form?: Record<string, string> }) {
  return (
    <section class="card" aria-labelledby="h-withdraw">
      <h2 id="h-withdraw">Withdraw</h2>
      <p class="hint">
        Send tokens from your balance to an address of yours. The network fee is ours: the address receives exactly the amount.
      </p>
      <form method="post" action="/wallet/payouts">
        <CsrfField token={csrf} />
        <input type="hidden" name="request_key" value={newRequestKey()} />
        <PayoutFields prefix="wd" assets={PAYER_ASSETS} {...(form ? { form } : {})} />
        <button type="submit">Withdraw</button>
      </form>
      <WithdrawalRows withdrawals={withdrawals} />
    </section>
  );
}
