// External-wallet payments and receiving caps on the hosted checkout: exact amounts, unmatched deposits, and
// caps in plain words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMerchantLimits } from '../src/modules/merchants/index.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { action, checkoutStatus, createIntent, eventTypes, openCheckout, pay, sandboxIntent } from './helpers/checkout.js';
import { Decimal } from 'decimal.js';
import QRCode from 'qrcode';

describe(`hosted checkout (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());

  describe('external wallet', () => {
    it('shows address, exact unique amount and QR; only the exact deposit is credited, others are kept as unmatched', async () => {
      const pi = await createIntent(s, { amount: '1000.00' });
      const page = await openCheckout(s, pi.checkout_url);
      const r = await pay(s, page, { method: 'external_wallet', network: 'tron' });
      expect(r.status, r.text).toBe(200);
      const next = r.json.next_action;
      expect(next).toMatchObject({ type: 'wallet_deposit', network: 'tron', network_name: 'TRON', asset: 'USDT' });
      expect(next.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
      expect(next.qr).toMatch(/^data:image\/svg\+xml;base64,/);
      expect(Buffer.from(next.qr.split(',')[1], 'base64').toString()).toContain('<svg');
      const tag = Number(next.amount) - Number(pi.pay_amount);
      expect(tag).toBeGreaterThan(0);
      expect(tag).toBeLessThan(0.01);
      expect(next.amount).toMatch(/^\d+\.\d{6}$/);
      // One amount per method, explained: what is due plus the tag that marks the payment.
      expect(next.amount_due).toBe(pi.pay_amount);
      expect(next.tag).toBe(new Decimal(next.amount).minus(pi.pay_amount).toFixed(6));
      // The QR code is the payment request a TRON wallet reads (token, recipient, exact amount).
      expect(next.payment_uri).toBe(
        `tron:${next.address}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=${new Decimal(next.amount).toFixed()}`,
      );
      const qrOf = async (text: string) => {
        const svg = await QRCode.toString(text, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
        return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
      };
      expect(next.qr).toBe(await qrOf(next.payment_uri));
      expect(next.qr).not.toBe(await qrOf(next.address));
      // The same intent and network keep their amount.
      expect((await pay(s, page, { method: 'external_wallet', network: 'tron' })).json.next_action.amount).toBe(next.amount);
      // Base and Polygon share an EVM address, told apart by network (another intent, so that this one
      // expects its amount on TRON only).
      const otherPage = await openCheckout(s, (await createIntent(s)).checkout_url);
      const base = (await pay(s, otherPage, { method: 'external_wallet', network: 'base' })).json.next_action;
      const polygon = (await pay(s, otherPage, { method: 'external_wallet', network: 'polygon' })).json.next_action;
      expect(base.address).toMatch(/^0x[0-9a-f]{40}$/);
      expect(polygon.address).toBe(base.address);
      // EIP-681: a transfer call of the token contract on the network's chain, in the token's base units.
      const units = (a: string) => new Decimal(a).mul(1_000_000).toFixed(0);
      expect(base.payment_uri).toBe(
        `ethereum:0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2@8453/transfer?address=${base.address}&uint256=${units(base.amount)}`,
      );
      expect(polygon.payment_uri).toBe(
        `ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=${polygon.address}&uint256=${units(polygon.amount)}`,
      );
      const solana = (await pay(s, otherPage, { method: 'external_wallet', network: 'solana' })).json.next_action;
      expect(solana.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      // Solana Pay: recipient, decimal amount and the token's mint.
      expect(solana.payment_uri).toBe(
        `solana:${solana.address}?amount=${new Decimal(solana.amount).toFixed()}&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB`,
      );
      expect((await pay(s, page, { method: 'external_wallet', network: 'bitcoin' })).json.error.param).toBe('network');

      const deposit = (body: Record<string, string>) => action(s, page, '/wallet/deposit', body);
      const wrong = [
        { network: 'tron', asset: 'USDT', amount: pi.pay_amount },
        { network: 'tron', asset: 'USDC', amount: next.amount },
        { network: 'solana', asset: 'USDT', amount: next.amount },
      ];
      const unmatchedIds: string[] = [];
      for (const d of wrong) {
        const res = await deposit(d);
        unmatchedIds.push(res.json.deposit.id);
        expect(res.status, res.text).toBe(200);
        expect(res.json.deposit).toMatchObject({ status: 'unmatched', reason: 'no_matching_payment', credited_this_payment: false });
      }
      expect((await sandboxIntent(s, pi.id)).status).toBe('awaiting_payment');
      expect((await deposit({ network: 'tron', asset: 'USDT', amount: '1.1234567' })).json.error.param).toBe('amount');

      const exact = await deposit({ network: 'tron', asset: 'USDT', amount: next.amount });
      expect(exact.json.deposit).toMatchObject({ status: 'credited', reason: null, credited_this_payment: true });
      const after = await sandboxIntent(s, pi.id);
      expect(after.status).toBe('paid');
      expect(after.payment_method).toBe('external_wallet');
      expect(after.amount_received).toBe(next.amount);
      expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.paid');
      // A second exact deposit pays the paid intent again: a duplicate payment, credited to the merchant.
      const repeat = await deposit({ network: 'tron', asset: 'USDT', amount: next.amount });
      expect(repeat.json.deposit).toMatchObject({ status: 'credited', reason: 'duplicate_payment' });
      expect((await eventTypes(s, pi.id)).at(-1)).toBe('payment_intent.duplicate_payment');

      // The merchant sees the unmatched deposits over the API; another merchant sees none.
      const list = await s.sandbox('GET', '/wallet-deposits?status=unmatched&limit=100');
      expect(list.status, list.text).toBe(200);
      expect(list.json.object).toBe('list');
      expect(list.json.data.map((d: any) => d.id).sort()).toEqual([...unmatchedIds].sort());
      for (const d of list.json.data) {
        expect(Object.keys(d).sort()).toEqual([
          'address',
          'amount',
          'asset',
          'created_at',
          'id',
          'livemode',
          'network',
          'object',
          'payment_intent',
          'reason',
          'sender',
          'status',
          'tx_hash',
        ]);
        expect(d.status).toBe('unmatched');
        expect(d.id).toMatch(/^wd_/);
      }
      const credited = await s.sandbox('GET', '/wallet-deposits?status=credited');
      expect(credited.json.data.map((d: any) => d.payment_intent)).toContain(pi.id);
      const other = await s.newMerchant({ name: 'Other' });
      const otherList = await s.call('test', 'GET', '/wallet-deposits', { key: other.keys.test_secret });
      expect(otherList.json.data).toEqual([]);
      expect((await s.call('test', 'GET', '/wallet-deposits?status=nope')).status).toBe(401);
      expect((await s.sandbox('GET', '/wallet-deposits?status=nope')).json.error.param).toBe('status');
    });

    it('two open intents never share address, network, asset and amount, even when allocated at once', async () => {
      const intents = await Promise.all(Array.from({ length: 12 }, () => createIntent(s, { amount: '777.00' })));
      const pages = await Promise.all(intents.map((pi) => openCheckout(s, pi.checkout_url)));
      const results = await Promise.all(pages.map((p) => pay(s, p, { method: 'external_wallet', network: 'polygon' })));
      for (const r of results) expect(r.status, r.text).toBe(200);
      const amounts = results.map((r) => r.json.next_action.amount as string);
      expect(new Set(amounts).size).toBe(amounts.length);
      expect(new Set(results.map((r) => r.json.next_action.address)).size).toBe(1);
      // The database refuses a second open allocation of one amount outright.
      const db = s.running.database.db;
      const smallest = [...amounts].sort((x, y) => Number(x) - Number(y))[0]!;
      const taken = await db
        .selectFrom('wallet_allocations')
        .selectAll()
        .where('amount', '=', smallest)
        .where('state', '=', 'open')
        .executeTakeFirstOrThrow();
      await expect(
        db
          .insertInto('wallet_allocations')
          .values({ ...taken, id: 'wa_duplicate', payment_intent_id: intents[1].id })
          .execute(),
      ).rejects.toThrow();
      // Once its intent has ended, its amount stays reserved for a day: another intent gets another amount.
      const cancelled = await s.sandbox('POST', `/payment-intents/${taken.payment_intent_id}/cancel`);
      expect(cancelled.status).toBe(200);
      const fresh = await createIntent(s, { amount: '777.00' });
      const r = await pay(s, await openCheckout(s, fresh.checkout_url), { method: 'external_wallet', network: 'polygon' });
      expect(amounts).not.toContain(r.json.next_action.amount);
    });

    it('an ended intent keeps its amount for a day: a late deposit is never credited to another intent', async () => {
      const m = await s.newMerchant({ name: 'Late payments' });
      const key = m.keys.test_secret;
      const walletPay = async (pi: any) =>
        (await pay(s, await openCheckout(s, pi.checkout_url), { method: 'external_wallet', network: 'base' })).json.next_action;
      const first = await createIntent(s, { amount: '555.00' }, key);
      const firstPay = await walletPay(first);
      expect((await s.call('test', 'POST', `/payment-intents/${first.id}/cancel`, { key })).status).toBe(200);
      const second = await createIntent(s, { amount: '555.00' }, key);
      const secondPay = await walletPay(second);
      expect(secondPay.amount).not.toBe(firstPay.amount);
      // The late payment of the cancelled intent: kept as unmatched, the second intent untouched.
      const page = await openCheckout(s, second.checkout_url);
      const late = await action(s, page, '/wallet/deposit', { network: 'base', asset: 'USDT', amount: firstPay.amount });
      expect(late.json.deposit).toMatchObject({ status: 'unmatched', reason: 'intent_not_payable', credited_this_payment: false });
      expect((await s.call('test', 'GET', `/payment-intents/${second.id}`, { key })).json.status).toBe('awaiting_payment');
      // A day after the first intent ended, its amount is free again.
      const adv = await s.call('test', 'POST', '/sandbox/clock/advance', { key, body: { seconds: 24 * 3600 + 60 } });
      expect(adv.status, adv.text).toBe(200);
      const third = await createIntent(s, { amount: '555.00' }, key);
      expect((await walletPay(third)).amount).toBe(firstPay.amount);
    });
  });

  describe('receiving caps', () => {
    it('an over-cap attempt shows MERCHANT_LIMIT_EXCEEDED in plain words and leaves the intent awaiting payment', async () => {
      const m = await s.newMerchant({ name: 'Capped shop' });
      await setMerchantLimits(s.running.database.db, m.merchant.id, { perPayment: '5' });
      const pi = await createIntent(s, { amount: '1500.00' }, m.keys.test_secret);
      const page = await openCheckout(s, pi.checkout_url);
      const r = await pay(s, page, { method: 'card', card_number: '4242424242424242', card_expiry: '12/40', card_cvc: '123' });
      expect(r.status).toBe(402);
      expect(r.json.error.code).toBe('MERCHANT_LIMIT_EXCEEDED');
      expect(r.json.error.message).toContain('more than Capped shop can receive right now');
      expect(r.json.error.message).toContain('Nothing was taken from you');
      const after = await s.call('test', 'GET', `/payment-intents/${pi.id}`, { key: m.keys.test_secret });
      expect(after.json.status).toBe('awaiting_payment');
      const st = await checkoutStatus(s, page);
      expect(st.json.status).toBe('awaiting_payment');
      expect(st.json.final).toBe(false);
      expect(st.json.detail).toContain('MERCHANT_LIMIT_EXCEEDED');
      expect(st.json.attempt).toEqual({ method: 'card', state: 'declined' });

      // The exact wallet deposit over the cap is kept aside, not credited.
      const w = await pay(s, page, { method: 'external_wallet', network: 'tron' });
      const dep = await action(s, page, '/wallet/deposit', { network: 'tron', asset: 'USDT', amount: w.json.next_action.amount });
      expect(dep.json.deposit).toMatchObject({ status: 'unmatched', reason: 'MERCHANT_LIMIT_EXCEEDED' });
      expect((await s.call('test', 'GET', `/payment-intents/${pi.id}`, { key: m.keys.test_secret })).json.status).toBe('awaiting_payment');
    });
  });
});
