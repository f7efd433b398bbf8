// Payer withdrawals on an EVM network against Anvil (both engines): a payer withdraws from the wallet page
// with the transaction PIN; the payout sender sends it with the hot wallet, and the address receives exactly
// the amount while the payer's balance drops by exactly the amount, held at once and paid at the
// confirmation depth; a transfer the token reverts fails and returns to the balance. Above
// COWRIE_PAYOUT_AUTO_APPROVE a withdrawal waits for `cowrie payouts approve`; `cowrie payouts cancel`
// releases it back to the balance. Wrong PINs count toward the lockout, a locked PIN, a suspended payer,
// more than the balance, an address not of the network, a network with no sender and a form without its
// CSRF token are refused with nothing held. The sandbox wallet simulates the send. Withdrawals are no
// merchant's: the merchant API neither lists nor finds them, and one payer never sees another's.
import { randomBytes } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { getAddress, parseUnits, type Address } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Anvil } from './helpers/anvil.js';
import { cliRunner } from './helpers/cli.js';
import { ENGINE, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';
import { expectLedgerInvariant, expectPayerLedgerInvariant } from './helpers/ledger-invariant.js';
import { startPayoutChain, type PayoutChain } from './helpers/payout-chain.js';
import { waitFor, waitForStatus } from './helpers/wait.js';
import { WalletClient, adjust, signedUpPayer } from './helpers/wallet.js';

const CONFIRMATIONS = 2;

describe(`payer withdrawals through the payout sender, on Anvil (${ENGINE})`, () => {
  let base: PayoutChain;
  let chain: Anvil;
  let s: TestServer;
  const { cli } = cliRunner(() => ({ url: s.config.databaseUrl }) as TestDatabase, []);

  beforeAll(async () => {
    base = await startPayoutChain(CONFIRMATIONS);
    chain = base.chain;
    s = await startTestServer({
      noLiveRails: true,
      env: {
        ...base.env,
        COWRIE_PAYER_ACCOUNTS: 'on',
        COWRIE_PAYOUT_AUTO_APPROVE: '50',
        COWRIE_JOB_INTERVAL_MS: '60000',
      },
    });
  }, 90_000);
  afterEach(async () => {
    await expectPayerLedgerInvariant(s.running.database.db);
    await expectLedgerInvariant(s.running.database.db);
  });
  afterAll(async () => {
    await s?.stop();
    await chain?.stop();
  });

  const db = () => s.running.database.db;
  const onChain = (owner: Address) => base.balanceOf(owner);
  const fresh = () => getAddress(`0x${randomBytes(20).toString('hex')}`);
  const balanceOf = async (payerId: string) => (await s.running.services.payerAccounts.wallet(payerId, 'live')).balances.USDT.toFixed(6);
  const withdrawalsOf = (payerId: string) =>
    db().selectFrom('payouts').selectAll().where('payer_id', '=', payerId).orderBy('created_at').orderBy('id').execute();
  const rowOf = (id: string) => db().selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const txsOf = (id: string) => db().selectFrom('payout_transactions').selectAll().where('payout_id', '=', id).execute();
  const waitStatus = (id: string, status: string) => waitForStatus(rowOf, id, status, { timeoutMs: 20_000 });
  const auditOf = async (payerId: string) =>
    (await db().selectFrom('payer_audit').select(['action', 'actor']).where('payer_id', '=', payerId).orderBy('created_at').execute())
      .map((a) => a.action)
      .filter((a) => a.startsWith('payout.'));
  /** A payer signed up on the live wallet with `funds` USDT. */
  const funded = async (name: string, funds = '100') => {
    const p = await signedUpPayer(s, `${name}-${randomBytes(3).toString('hex')}@payers.example`);
    await adjust(s, p.payerId, funds);
    return p;
  };

  it('an auto-approved withdrawal is held at once, sent, and paid at the depth: the address receives exactly the amount', async () => {
    const { client, payerId } = await funded('ada');
    const to = fresh();
    const hotBefore = await onChain(base.hot);
    const r = await client.withdraw({ amount: '12.345678', address: to });
    expect(r.status, r.html).toBe(303);
    expect(r.location).toBe('/wallet?done=withdrawal');
    expect(await balanceOf(payerId)).toBe('87.654322');
    const [w] = await withdrawalsOf(payerId);
    expect(w).toMatchObject({ purpose: 'payer_withdrawal', merchant_id: null, amount: '12.345678', asset: 'USDT', network: 'base' });
    expect(w!.approved_at).not.toBeNull();
    const sent = await waitStatus(w!.id, 'sent');
    expect(sent.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    await waitFor(
      'mined',
      () => onChain(to),
      (b) => b === parseUnits('12.345678', 6),
    );
    await chain.mine(CONFIRMATIONS);
    const paid = await waitStatus(w!.id, 'paid');
    expect(paid.tx_hash).toBe(sent.tx_hash);
    await chain.mine(3);
    await new Promise((res) => setTimeout(res, 500));
    expect(await onChain(to)).toBe(parseUnits('12.345678', 6));
    expect(hotBefore - (await onChain(base.hot))).toBe(parseUnits('12.345678', 6));
    expect((await txsOf(w!.id)).map((t) => t.state)).toEqual(['landed']);
    expect(await balanceOf(payerId)).toBe('87.654322');
    // The payer's ledger: held from the balance, then sent from the hold to the world.
    const legs = await db().selectFrom('payer_ledger_entries').selectAll().where('payout_id', '=', w!.id).orderBy('seq').execute();
    expect(legs.map((l) => [l.kind, l.account, new Decimal(l.amount).toFixed(6)])).toEqual([
      ['withdrawal', 'payer_payout_held', '12.345678'],
      ['withdrawal', 'payer_balance', '-12.345678'],
      ['withdrawal_sent', 'world', '12.345678'],
      ['withdrawal_sent', 'payer_payout_held', '-12.345678'],
    ]);
    expect(await auditOf(payerId)).toEqual(['payout.requested', 'payout.approved', 'payout.sent', 'payout.paid']);
    // No merchant's event or audit entry for it.
    const events = await db().selectFrom('events').select('payload').where('type', 'like', 'payout.%').execute();
    expect(events.filter((e) => e.payload.includes(w!.id))).toEqual([]);
    expect(await db().selectFrom('audit_log').select('id').where('target', '=', w!.id).execute()).toEqual([]);
    // The wallet page: the withdrawal with its state and hash, and the movement.
    const page = (await client.request('GET', '/wallet')).html;
    expect(page).toContain(`data-payout="${w!.id}"`);
    expect(page).toContain('Paid');
    expect(page).toContain(paid.tx_hash!);
    expect(page).toContain('<td>-<span class="money">USDT 12.345678</span></td>');
    expect(page).toContain('id="balance-USDT"><span class="money">USDT 87.654322</span>');
  });

  it('above COWRIE_PAYOUT_AUTO_APPROVE a withdrawal waits held until `cowrie payouts approve`', async () => {
    const { client, payerId } = await funded('bob');
    const to = fresh();
    expect((await client.withdraw({ amount: '60', address: to })).status).toBe(303);
    const [w] = await withdrawalsOf(payerId);
    expect(w).toMatchObject({ status: 'requested', approved_at: null });
    expect(await balanceOf(payerId)).toBe('40.000000');
    const listed = await cli('payouts', 'list', '--status', 'requested', '--json');
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out).payouts.map((p: any) => p.id)).toContain(w!.id);
    await new Promise((res) => setTimeout(res, 500));
    expect(await txsOf(w!.id)).toHaveLength(0);
    expect((await client.request('GET', '/wallet')).html).toContain('Waiting to be sent');
    const approved = await cli('payouts', 'approve', w!.id, '--json');
    expect(approved.code, approved.err + approved.out).toBe(0);
    await waitStatus(w!.id, 'sent');
    await chain.mine(CONFIRMATIONS);
    await waitStatus(w!.id, 'paid');
    expect(await onChain(to)).toBe(parseUnits('60', 6));
    expect(await balanceOf(payerId)).toBe('40.000000');
    expect(await auditOf(payerId)).toEqual(['payout.requested', 'payout.approved', 'payout.sent', 'payout.paid']);
    const again = await cli('payouts', 'approve', w!.id);
    expect(again.code).not.toBe(0);
    expect(again.err + again.out).toContain('is paid');
  });

  it('`cowrie payouts cancel` releases a waiting withdrawal back to the balance; nothing is sent', async () => {
    const { client, payerId } = await funded('cy');
    const to = fresh();
    expect((await client.withdraw({ amount: '70', address: to })).status).toBe(303);
    const [w] = await withdrawalsOf(payerId);
    expect(await balanceOf(payerId)).toBe('30.000000');
    const cancelled = await cli('payouts', 'cancel', w!.id, '--json');
    expect(cancelled.code, cancelled.err + cancelled.out).toBe(0);
    expect((await rowOf(w!.id)).status).toBe('cancelled');
    expect(await balanceOf(payerId)).toBe('100.000000');
    const page = (await client.request('GET', '/wallet')).html;
    expect(page).toContain('Cancelled');
    expect(page).toContain('Withdrawal returned');
    expect(page).toContain('<td>+<span class="money">USDT 70.000000</span></td>');
    expect((await cli('payouts', 'approve', w!.id)).code).not.toBe(0);
    await new Promise((res) => setTimeout(res, 500));
    expect(await txsOf(w!.id)).toHaveLength(0);
    expect(await onChain(to)).toBe(0n);
    expect(await auditOf(payerId)).toEqual(['payout.requested', 'payout.cancelled']);
  });

  it('the same form sent twice, and three times at once, makes one withdrawal and holds its amount once', async () => {
    const { client, payerId } = await funded('dee');
    // Above the threshold: it waits, so nothing is sent while the repeats arrive.
    const form = await client.withdrawalForm({ amount: '60', address: fresh() });
    expect(form.request_key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((await client.request('POST', '/wallet/payouts', form)).status).toBe(303);
    expect((await client.request('POST', '/wallet/payouts', form)).status).toBe(303);
    const again = await Promise.all([1, 2, 3].map(() => client.request('POST', '/wallet/payouts', form)));
    expect(again.map((r) => r.status)).toEqual([303, 303, 303]);
    const made = await withdrawalsOf(payerId);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ amount: '60.000000', payer_request_key: form.request_key });
    expect(await balanceOf(payerId)).toBe('40.000000');
    expect(await auditOf(payerId)).toEqual(['payout.requested']);
    // A new drawing of the form is a new withdrawal; a form without its key is refused and holds nothing.
    expect((await client.withdraw({ amount: '10', address: fresh() })).status).toBe(303);
    expect(await withdrawalsOf(payerId)).toHaveLength(2);
    const stale = await client.request('POST', '/wallet/payouts', {
      ...(await client.withdrawalForm({ amount: '5', address: fresh() })),
      request_key: '',
    });
    expect(stale.status).toBe(400);
    expect(stale.html).toContain('This form is out of date: reload the page and ask again.');
    expect(await withdrawalsOf(payerId)).toHaveLength(2);
    expect(await balanceOf(payerId)).toBe('30.000000');
    // The waiting one cancelled comes back once (the 10 went out by itself, under the threshold).
    expect((await cli('payouts', 'cancel', made[0]!.id, '--json')).code).toBe(0);
    expect(await balanceOf(payerId)).toBe('90.000000');
  });

  it('a transfer the token reverts (the hot wallet holds no USDC) fails with the reason and returns to the balance', async () => {
    const { client, payerId } = await signedUpPayer(s, `joe-${randomBytes(3).toString('hex')}@payers.example`);
    await adjust(s, payerId, '9', 'USDC');
    const usdcOf = async () => (await s.running.services.payerAccounts.wallet(payerId, 'live')).balances.USDC.toFixed(6);
    expect((await client.withdraw({ amount: '5', asset: 'USDC', address: fresh() })).status).toBe(303);
    expect(await usdcOf()).toBe('4.000000');
    const [w] = await withdrawalsOf(payerId);
    await waitFor(
      'mined',
      () => txsOf(w!.id),
      (t) => t.length === 1 && t[0]!.state !== 'signed',
    );
    await chain.mine(CONFIRMATIONS);
    const failed = await waitStatus(w!.id, 'failed');
    expect(failed.failure_reason).toContain('reverted');
    expect(await usdcOf()).toBe('9.000000');
    const page = (await client.request('GET', '/wallet')).html;
    expect(page).toContain('Failed');
    expect(page).toContain('Withdrawal returned');
    expect(await auditOf(payerId)).toEqual(['payout.requested', 'payout.approved', 'payout.sent', 'payout.failed']);
  });

  it('wrong PINs are refused and count toward the lockout; a locked PIN refuses even the right one; nothing is held', async () => {
    const { client, payerId } = await funded('dee');
    for (let i = 1; i <= 4; i++) {
      const r = await client.withdraw({ amount: '5', address: fresh() }, '135791');
      expect(r.status).toBe(400);
      expect(r.html).toContain('The PIN is not right.');
      // The form comes back as typed, but never the PIN.
      expect(r.html).toContain('value="5"');
      expect(r.html).not.toContain('135791');
    }
    const fifth = await client.withdraw({ amount: '5', address: fresh() }, '135791');
    expect(fifth.status).toBe(400);
    expect(fifth.html).toContain('locked for 15 minutes');
    const locked = await client.withdraw({ amount: '5', address: fresh() });
    expect(locked.status).toBe(403);
    expect(locked.html).toContain('locked after 5 wrong PINs');
    expect(await withdrawalsOf(payerId)).toEqual([]);
    expect(await balanceOf(payerId)).toBe('100.000000');
  });

  it('a suspended payer cannot withdraw; unsuspended, it can', async () => {
    const { client, payerId } = await funded('eve');
    await s.running.services.payerAccounts.setStatus(payerId, 'suspended');
    const r = await client.withdraw({ amount: '5', address: fresh() });
    expect(r.status).toBe(403);
    expect(r.html).toContain('This account is suspended');
    expect(await withdrawalsOf(payerId)).toEqual([]);
    expect(await balanceOf(payerId)).toBe('100.000000');
    await s.running.services.payerAccounts.setStatus(payerId, 'active');
    expect((await client.withdraw({ amount: '100', address: fresh() })).status).toBe(303);
    expect(await balanceOf(payerId)).toBe('0.000000');
  });

  it('more than the balance, an address not of the network, a network with no sender, a bad amount or asset: refused, nothing held', async () => {
    const { client, payerId } = await funded('fay', '10');
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ amount: '10.000001', address: fresh() }, 400, 'more than your balance of 10.000000 USDT'],
      [{ amount: '1', address: '0x1234' }, 400, 'not a valid BASE address'],
      [{ amount: '1', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', network: 'TRON' }, 400, 'No payout sender is configured for TRON'],
      [{ amount: '1', address: fresh(), network: 'DOGE' }, 400, 'Invalid network'],
      [{ amount: '-1', address: fresh() }, 400, 'Invalid amount'],
      [{ amount: '1.1234567', address: fresh() }, 400, 'Invalid amount'],
      [{ amount: 'ten', address: fresh() }, 400, 'Invalid amount'],
      [{ amount: '1', address: fresh(), asset: 'BTC' }, 400, 'payers hold USDT and USDC'],
    ];
    for (const [body, status, message] of cases) {
      const r = await client.withdraw(body as { amount: string; address: string });
      expect(r.status, JSON.stringify(body)).toBe(status);
      expect(r.html, JSON.stringify(body)).toContain(message);
    }
    // A form without the page's CSRF token changes nothing.
    const forged = await client.request('POST', '/wallet/payouts', {
      amount: '1',
      asset: 'USDT',
      network: 'BASE',
      address: fresh(),
      pin: '246810',
    });
    expect(forged.status).toBe(403);
    // Signed out: back to the sign-in page.
    const anonymous = await new WalletClient(s.url('live', '')).request('POST', '/wallet/payouts', { amount: '1' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/wallet/login');
    expect(await withdrawalsOf(payerId)).toEqual([]);
    expect(await balanceOf(payerId)).toBe('10.000000');
    // A PIN was never asked for: none of these counted toward the lockout.
    expect((await db().selectFrom('payers').select('pin_failures').where('id', '=', payerId).executeTakeFirstOrThrow()).pin_failures).toBe(
      0,
    );
  });

  it('in the sandbox wallet a withdrawal is sent at once with a simulated hash and paid when its 30 s are up', async () => {
    const { client, payerId } = await signedUpPayer(s, `ivy-${randomBytes(3).toString('hex')}@payers.example`, 'test');
    await adjust(s, payerId, '20');
    // TRON has no sender here: the sandbox needs none.
    const r = await client.withdraw({ amount: '7.25', network: 'TRON', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7' });
    expect(r.status, r.html).toBe(303);
    const [w] = await withdrawalsOf(payerId);
    expect(w).toMatchObject({ environment: 'test', status: 'sent', purpose: 'payer_withdrawal' });
    expect(w!.tx_hash).toMatch(/^sandbox_[0-9a-f]{64}$/);
    expect(w!.resolve_at! - w!.sent_at!).toBe(30_000);
    const sandboxBalance = async () => (await s.running.services.payerAccounts.wallet(payerId, 'test')).balances.USDT.toFixed(6);
    expect(await sandboxBalance()).toBe('12.750000');
    expect(await s.running.services.payouts.payDueSandboxPayouts()).toBe(0);
    // Its 30 s pass.
    await db()
      .updateTable('payouts')
      .set({ resolve_at: Date.now() - 1 })
      .where('id', '=', w!.id)
      .execute();
    expect(await s.running.services.payouts.payDueSandboxPayouts()).toBeGreaterThanOrEqual(1);
    expect((await rowOf(w!.id)).status).toBe('paid');
    expect(await sandboxBalance()).toBe('12.750000');
  });

  it("withdrawals are no merchant's and no other payer's: the merchant API neither lists nor finds them", async () => {
    const a = await funded('gus');
    const b = await funded('hal');
    expect((await a.client.withdraw({ amount: '1.5', address: fresh() })).status).toBe(303);
    const [w] = await withdrawalsOf(a.payerId);
    const key = s.merchant.keys.live_secret!;
    const list = await s.call('live', 'GET', '/payouts?limit=100', { key });
    expect(list.status).toBe(200);
    expect(list.json.data.map((p: any) => p.id)).not.toContain(w!.id);
    expect((await s.call('live', 'GET', `/payouts/${w!.id}`, { key })).status).toBe(404);
    const other = await b.client.request('GET', '/wallet');
    expect(other.html).not.toContain(w!.id);
    expect(other.html).toContain('No withdrawals yet.');
    expect(await balanceOf(b.payerId)).toBe('100.000000');
    // The sandbox wallet (another environment) is a separate account: its session does not reach the live wallet.
    const sandbox = await signedUpPayer(s, `gus-sandbox-${randomBytes(3).toString('hex')}@payers.example`, 'test');
    expect((await sandbox.client.request('GET', '/wallet')).html).not.toContain(w!.id);
    await waitStatus(w!.id, 'sent');
    await chain.mine(CONFIRMATIONS);
    await waitStatus(w!.id, 'paid');
  });
});
