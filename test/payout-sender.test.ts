// The payout sender's steps on both engines, driven run by run with a scripted network (the way TRON and
// Solana behave: a transfer valid until a time, then `expired` if it never landed; an RPC that fails):
// an RPC failure at broadcast leaves the recorded transfer and retries it with backoff, the same bytes,
// never a second signature; an expired transfer is dropped and signed anew, the new one is paid; a reverted
// one fails and releases the hold; a transfer not yet at the depth waits; a cancelled payout is never signed.
import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PayoutSender, PayoutService } from '../src/modules/payouts/index.js';
import type { PayoutLookup, PayoutNetworkClient, PayoutTransfer, SignedPayout } from '../src/modules/rails/index.js';
import { ManualClock } from '../src/shared/clock.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { ACCOUNTS, transfer } from '../src/modules/ledger/index.js';

const TRON = 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7';

/** A network that answers as scripted: each signature a new hash, look-ups from a table the test sets. */
class ScriptedNetwork implements PayoutNetworkClient {
  readonly network = 'tron' as const;
  readonly from = 'TQn9Y2khEsLJW1ChVWFMSMeRDow5KcbLSE';
  signed: Array<{ transfer: PayoutTransfer; tx: SignedPayout }> = [];
  broadcasts: string[] = [];
  failBroadcasts = 0;
  states = new Map<string, PayoutLookup>();
  isValidAddress(address: string) {
    return address.startsWith('T');
  }
  async sign(transfer: PayoutTransfer): Promise<SignedPayout> {
    const tx = {
      txHash: `tx${this.signed.length + 1}_${Math.random().toString(36).slice(2)}`,
      raw: `{"n":${this.signed.length}}`,
      validUntil: Date.now() + 60_000,
    };
    this.signed.push({ transfer, tx });
    return tx;
  }
  async broadcast(signed: SignedPayout): Promise<void> {
    if (this.failBroadcasts > 0) {
      this.failBroadcasts--;
      throw new Error('TronGrid answered 503');
    }
    this.broadcasts.push(signed.txHash);
    if (!this.states.has(signed.txHash)) this.states.set(signed.txHash, { state: 'pending' });
  }
  async lookup(signed: SignedPayout): Promise<PayoutLookup> {
    return this.states.get(signed.txHash) ?? { state: 'unknown' };
  }
  async tokenBalance(): Promise<bigint> {
    return 0n;
  }
}

describe(`the payout sender, run by run (${ENGINE})`, () => {
  let s: TestServer;
  const clock = new ManualClock(Date.now());
  let net: ScriptedNetwork;
  let sender: PayoutSender;
  let payouts: PayoutService;
  let merchantId: string;

  beforeAll(async () => {
    s = await startTestServer({ clock });
    const m = await s.newMerchant({ name: 'Sender', verified: true });
    merchantId = m.merchant.id;
    const db = s.running.database.db;
    await transfer(
      db,
      { merchantId, environment: 'live', asset: 'USDT', kind: 'payment', at: clock.nowMs() },
      ACCOUNTS.world,
      ACCOUNTS.available,
      new Decimal(100),
    );
    payouts = new PayoutService({
      db,
      clocks: s.running.services.clocks,
      networks: { has: () => true, isValidAddress: () => true },
      autoApprove: new Decimal(50),
    });
  });
  afterAll(async () => s?.stop());

  const fresh = () => {
    net = new ScriptedNetwork();
    sender = new PayoutSender({
      db: s.running.database.db,
      clock,
      retryMs: 1_000,
      target: {
        network: 'tron',
        client: net,
        tokens: { USDT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', USDC: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8' },
        confirmations: 19,
        replaceAfterBlocks: 20,
      },
    });
  };
  const scope = () => ({ merchantId, environment: 'live' as const });
  const row = (id: string) => s.running.database.db.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const txs = (id: string) =>
    s.running.database.db.selectFrom('payout_transactions').selectAll().where('payout_id', '=', id).orderBy('attempt').execute();
  const available = async () =>
    (await s.call('live', 'GET', '/balances', { key: (await s.newKey({ merchantId, environment: 'live', type: 'secret' })).key })).json
      .data[0].available;

  it('an RPC failure at broadcast keeps the recorded transfer and retries the same bytes with backoff; it is never signed twice', async () => {
    fresh();
    const p = await payouts.create(scope(), { amount: '4', asset: 'USDT', network: 'TRON', address: TRON });
    net.failBroadcasts = 2;
    await sender.runOnce();
    expect(net.signed).toHaveLength(1);
    expect(net.signed[0]!.transfer).toMatchObject({
      asset: 'USDT',
      to: TRON,
      units: 4_000_000n,
      token: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    });
    expect((await txs(p.id)).map((t) => t.state)).toEqual(['signed']);
    expect((await row(p.id)).status).toBe('requested');
    // Backing off: the next run leaves it alone until its time.
    await sender.runOnce();
    expect(net.broadcasts).toEqual([]);
    clock.advance(2_100);
    await sender.runOnce(); // the second failure
    clock.advance(60_000);
    await sender.runOnce();
    expect(net.signed).toHaveLength(1);
    expect(net.broadcasts).toEqual([net.signed[0]!.tx.txHash]);
    const sent = await row(p.id);
    expect(sent).toMatchObject({ status: 'sent', tx_hash: net.signed[0]!.tx.txHash });
    // Not at the depth yet: it waits; at the depth, paid.
    net.states.set(net.signed[0]!.tx.txHash, { state: 'included', block: 10, confirmations: 5, success: true });
    await sender.runOnce();
    expect((await row(p.id)).status).toBe('sent');
    net.states.set(net.signed[0]!.tx.txHash, { state: 'included', block: 10, confirmations: 19, success: true });
    await sender.runOnce();
    expect((await row(p.id)).status).toBe('paid');
    expect((await txs(p.id)).map((t) => t.state)).toEqual(['landed']);
    await sender.runOnce();
    expect(net.signed).toHaveLength(1);
  });

  it('an expired transfer that never landed is dropped and signed anew; the new one is the one paid', async () => {
    fresh();
    const p = await payouts.create(scope(), { amount: '3', asset: 'USDT', network: 'TRON', address: TRON });
    await sender.runOnce();
    const first = net.signed[0]!.tx.txHash;
    expect((await row(p.id)).status).toBe('sent');
    net.states.set(first, { state: 'expired' });
    await sender.runOnce();
    expect(net.signed).toHaveLength(2);
    const second = net.signed[1]!.tx.txHash;
    expect((await txs(p.id)).map((t) => [t.attempt, t.state])).toEqual([
      [1, 'dropped'],
      [2, 'broadcast'],
    ]);
    net.states.set(second, { state: 'included', block: 20, confirmations: 30, success: true });
    await sender.runOnce();
    const paid = await row(p.id);
    expect(paid).toMatchObject({ status: 'paid', tx_hash: second });
    const events = await s.running.database.db.selectFrom('events').select(['type', 'payload']).where('type', 'like', 'payout.%').execute();
    const mine = events.filter((e) => JSON.parse(e.payload).data.id === p.id).map((e) => e.type);
    expect(mine.sort()).toEqual(['payout.created', 'payout.paid', 'payout.sent']);
  });

  it('a reverted transfer at the depth fails the payout with the reason and releases the hold', async () => {
    fresh();
    const before = new Decimal(await available());
    const p = await payouts.create(scope(), { amount: '2', asset: 'USDT', network: 'TRON', address: TRON });
    await sender.runOnce();
    net.states.set(net.signed[0]!.tx.txHash, { state: 'included', block: 30, confirmations: 40, success: false });
    await sender.runOnce();
    const failed = await row(p.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure_reason).toContain('reverted');
    expect(new Decimal(await available()).toFixed(6)).toBe(before.toFixed(6));
  });

  it('a payout waiting for approval is not sent; a cancelled one is never signed', async () => {
    fresh();
    const big = await payouts.create(scope(), { amount: '60', asset: 'USDT', network: 'TRON', address: TRON });
    await sender.runOnce();
    expect(net.signed).toHaveLength(0);
    await payouts.cancel(big.id);
    await sender.runOnce();
    expect(net.signed).toHaveLength(0);
    expect((await row(big.id)).status).toBe('cancelled');
  });
});
