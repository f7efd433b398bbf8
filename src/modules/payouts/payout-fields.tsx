// What a payout's form asks (asset, network, address, amount and the transaction PIN) and what its states
// say in words: shared by the console's payouts page and the wallet's withdrawals, so both ask and show alike.
import type { Payout } from './payout.schema.js';

export const PAYOUT_STATUS_WORDS: Record<Payout['status'], string> = {
  requested: 'Waiting to be sent',
  sent: 'Sent, confirming',
  paid: 'Paid',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

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

/** The fields of a payout request, ids prefixed `prefix-`; `form` is what was typed before a refusal (never the PIN). */
export function PayoutFields({ prefix, form = {}, assets }: { prefix: string; form?: Record<string, string>; assets: readonly string[] }) {
  return (
    <>
      <Choice id={`${prefix}-asset`} name="asset" label="Asset" values={[...assets]} chosen={form['asset']} />
      <Choice
        id={`${prefix}-network`}
        name="network"
        label="Network"
        values={['BASE', 'POLYGON', 'TRON', 'SOLANA']}
        chosen={form['network']}
      />
      <label for={`${prefix}-address`}>Address</label>
      <input id={`${prefix}-address`} name="address" required maxLength={100} autocomplete="off" value={form['address'] ?? ''} />
      <label for={`${prefix}-amount`}>Amount</label>
      <input id={`${prefix}-amount`} name="amount" required inputMode="decimal" maxLength={30} value={form['amount'] ?? ''} />
      <label for={`${prefix}-pin`}>Transaction PIN</label>
      <input id={`${prefix}-pin`} name="pin" type="password" inputMode="numeric" autocomplete="off" required />
    </>
  );
}
