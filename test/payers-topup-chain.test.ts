// On-chain top-ups of payer accounts against Anvil, a real Ethereum node (Base's chain id), through the
// wallet's pages and the same chain watcher as intents: the form offers only configured networks and
// refuses a bad amount; the exact tagged amount is credited at the confirmation depth (balance, ledger legs,
// the movement listed); a second transfer of it, a wrong amount and a transfer removed by a reorganisation
// before its depth are never credited; a top-up and an intent on one address never get the same amount;
// another payer never sees nor gets it; the sandbox wallet has no top-ups; past 24 hours it no longer matches.
import { randomBytes } from 'node:crypto';
import { getAddress, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { startAnvil, type Anvil } from './helpers/anvil.js';
import { HAVE_CHROMIUM, axeSeriousViolations, launchChromium } from './helpers/browser.js';
import { openCheckout, pay } from './helpers/checkout.js';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import { jobRuns, waitFor } from './helpers/wait.js';
import { WalletClient, expectPayerLedgerBalanced, signInInBrowser, signedUpPayer } from './helpers/wallet.js';

const CONFIRMATIONS = 3;

describe(`payer top-ups on chain against Anvil (${ENGINE})`, () => {
  let base: Anvil;
  let usdt: Address;
  let usdc: Address;
  let s: TestServer;
  const payee = getAddress(`0x${randomBytes(20).toString('hex')}`);
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    base = await startAnvil({ chainId: 84532 });
    usdt = await base.deployToken('USDT');
    usdc = await base.deployToken('USDC');
    await base.mint(usdt, base.accounts[0]!, '1000000');
    await base.mint(usdc, base.accounts[0]!, '1000000');
    s = await startTestServer({
      clock,
      noLiveRails: true,
      env: {
        COWRIE_PAYER_ACCOUNTS: 'on',
        COWRIE_TRUST_PROXY: '127.0.0.1',
        COWRIE_CHAIN_POLL_MS: '100',
        COWRIE_CHAIN_BASE_RPC_URLS: base.url,
        COWRIE_CHAIN_BASE_ADDRESS: payee,
        COWRIE_CHAIN_BASE_USDT: usdt,
        COWRIE_CHAIN_BASE_USDC: usdc,
        COWRIE_CHAIN_BASE_CONFIRMATIONS: String(CONFIRMATIONS),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await s?.stop();
    await base?.stop();
  });

  const db = () => s.running.database.db;
  const home = async (client: WalletClient) => {
    const page = await client.request('GET', '/wallet');
    expect(page.status).toBe(200);
    return page.html;
  };
  const askTopup = async (client: WalletClient, form: { amount: string; asset?: string; network?: string }) => {
    const csrf = WalletClient.csrfOf(await home(client));
    return client.request('POST', '/wallet/topups/chain', { _csrf: csrf, asset: 'USDT', network: 'base', ...form });
  };
  /** Asks for a top-up and answers it as the page then shows it: exact amount and address. */
  const topupOf = async (client: WalletClient, amount: string, asset = 'USDT') => {
    const r = await askTopup(client, { amount, asset });
    expect(r.status, r.html).toBe(303);
    expect(r.location).toBe('/wallet?done=topup');
    const html = (await client.request('GET', r.location!)).html;
    // The page lists the payer's own waiting top-ups: the newest of this amount and asset is the one asked.
    const ids = [...html.matchAll(/id="topup-(ptu_[0-9A-Za-z]+)"/g)].map((m) => m[1]!);
    expect(ids.length, html).toBeGreaterThan(0);
    const row = await db()
      .selectFrom('payer_chain_topups')
      .selectAll()
      .where('id', 'in', ids)
      .where('requested_amount', '=', Number(amount).toFixed(6))
      .where('asset', '=', asset)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    const item = new RegExp(
      `id="topup-${row.id}">.*?class="topup-amount">([0-9.]+) (USDT|USDC)</strong>.*?class="topup-address">([^<]+)<`,
      's',
    ).exec(html);
    expect(item?.slice(1), html).toEqual([row.amount, asset, payee]);
    return row;
  };
  const balanceOf = async (client: WalletClient, asset = 'USDT') =>
    new RegExp(`id="balance-${asset}"><span class="money">${asset} ([0-9.]+)<`).exec(await home(client))?.[1];
  const transferOf = (txHash: string) => db().selectFrom('chain_transfers').selectAll().where('tx_hash', '=', txHash).executeTakeFirst();
  const waitTransfer = (txHash: string, done: (t: any) => boolean) =>
    waitFor(
      `transfer ${txHash}`,
      () => transferOf(txHash),
      (t) => !!t && done(t),
    );
  const topupRow = (id: string) => db().selectFrom('payer_chain_topups').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const legsOf = (payerId: string) => db().selectFrom('payer_ledger_entries').selectAll().where('payer_id', '=', payerId).execute();

  it('offers only the configured networks; a bad amount, asset or network is a form error and asks nothing', async () => {
    const { client, payerId } = await signedUpPayer(s, 'form@topups.example');
    const html = await home(client);
    expect(html).toContain('Add funds on-chain');
    expect([...html.matchAll(/<option value="([a-z]+)"/g)].map((m) => m[1])).toEqual(['base']);
    for (const [form, message] of [
      [{ amount: 'ten' }, 'Enter an amount from 1 to 1000000 USDT'],
      [{ amount: '0.5' }, 'Enter an amount from 1 to 1000000 USDT'],
      [{ amount: '10.1234567' }, 'at most 6 decimals'],
      [{ amount: '-5' }, 'Enter an amount'],
      [{ amount: '10', asset: 'DAI' }, 'Choose an asset: USDT or USDC.'],
      [{ amount: '10', network: 'polygon' }, 'Choose a network: Base.'],
    ] as const) {
      const r = await askTopup(client, form);
      expect(r.status, JSON.stringify(form)).toBe(400);
      expect(r.html).toContain('role="alert"');
      expect(r.html).toContain(message);
      // What the payer typed is kept in the form.
      expect(r.html).toContain(`value="${form.amount}"`);
    }
    expect(await db().selectFrom('payer_chain_topups').selectAll().where('payer_id', '=', payerId).execute()).toEqual([]);
    // Without a valid token: 403 and nothing asked.
    const forged = await client.request('POST', '/wallet/topups/chain', { _csrf: 'nope', amount: '10', asset: 'USDT', network: 'base' });
    expect(forged.status).toBe(403);
    expect(await db().selectFrom('payer_chain_topups').selectAll().where('payer_id', '=', payerId).execute()).toEqual([]);
  });

  it('credits the exact tagged amount at the depth: balance, balanced ledger legs, the movement listed; a second transfer of it is not', async () => {
    const { client, payerId } = await signedUpPayer(s, 'exact@topups.example');
    const topup = await topupOf(client, '10');
    expect(topup).toMatchObject({ status: 'requested', method: 'chain', network: 'base', environment: 'live', address: payee });
    expect(topup.id).toMatch(/^ptu_/);
    expect(topup.amount).toMatch(/^10\.00\d{4}$/);
    expect(topup.amount).not.toBe('10.000000');
    expect(Number(topup.expires_at) - Number(topup.created_at)).toBe(24 * 3_600_000);
    // The same request again (a second click) answers the same top-up.
    expect((await topupOf(client, '10')).id).toBe(topup.id);

    const sent = await base.transfer(usdt, payee, topup.amount);
    const seen = await waitTransfer(sent.hash, () => true);
    expect(seen).toMatchObject({ state: 'pending', payer_topup_id: topup.id, payment_intent_id: null, merchant_id: null });
    expect(await home(client)).toContain('Transfer seen: waiting for the network’s confirmations.');
    // Never credited before the depth, however long the watcher looks.
    await jobRuns(db(), 'chain-watch:base', 2);
    expect(await balanceOf(client)).toBe('0.000000');
    expect(await legsOf(payerId)).toEqual([]);

    await base.mine(CONFIRMATIONS - 1);
    const t = await waitTransfer(sent.hash, (x) => x.state === 'confirmed');
    expect(t).toMatchObject({ outcome: 'credited', reason: null, payer_topup_id: topup.id });
    expect(await topupRow(topup.id)).toMatchObject({ status: 'credited', tx_hash: sent.hash });
    expect(await balanceOf(client)).toBe(topup.amount);
    const legs = await legsOf(payerId);
    expect(legs).toHaveLength(2);
    expect(legs.map((l) => [l.account, l.kind, l.asset, Number(l.amount)]).sort()).toEqual(
      [
        ['payer_balance', 'top_up', 'USDT', Number(topup.amount)],
        ['world', 'top_up', 'USDT', -Number(topup.amount)],
      ].sort(),
    );
    expect(legs[0]!.movement_id).toBe((await topupRow(topup.id)).movement_id);
    await expectPayerLedgerBalanced(s);
    const html = await home(client);
    expect(html).toContain('<td>Top-up</td>');
    expect(html).toContain(`<td>+<span class="money">USDT ${topup.amount}</span></td>`);
    expect(html).toContain(`On-chain, Base: ${sent.hash}`);
    expect(html).not.toContain('class="topup-amount"');

    // The same amount sent again: kept as an unmatched deposit, the balance unchanged.
    const again = await base.transfer(usdt, payee, topup.amount);
    await base.mine(CONFIRMATIONS - 1);
    expect(await waitTransfer(again.hash, (x) => x.state === 'confirmed')).toMatchObject({
      outcome: 'unmatched',
      reason: 'topup_already_credited',
    });
    expect(await balanceOf(client)).toBe(topup.amount);
    expect(await legsOf(payerId)).toHaveLength(2);
  });

  it('a wrong amount or token is an unmatched deposit; the top-up keeps waiting and the balance does not move', async () => {
    const { client, payerId } = await signedUpPayer(s, 'wrong@topups.example');
    const topup = await topupOf(client, '11');
    const untagged = await base.transfer(usdt, payee, '11');
    const wrongToken = await base.transfer(usdc, payee, topup.amount);
    await base.mine(CONFIRMATIONS);
    for (const sent of [untagged, wrongToken]) {
      expect(await waitTransfer(sent.hash, (x) => x.state === 'confirmed')).toMatchObject({
        outcome: 'unmatched',
        reason: 'no_matching_payment',
        payer_topup_id: null,
      });
    }
    expect((await topupRow(topup.id)).status).toBe('requested');
    expect(await balanceOf(client)).toBe('0.000000');
    expect(await balanceOf(client, 'USDC')).toBe('0.000000');
    expect(await legsOf(payerId)).toEqual([]);
  });

  it('a reorganisation that removes the transfer before its depth never credits; sent again, it does', async () => {
    const { client, payerId } = await signedUpPayer(s, 'reorg@topups.example');
    const topup = await topupOf(client, '12', 'USDC');
    const before = await base.snapshot();
    const sent = await base.transfer(usdc, payee, topup.amount);
    await waitTransfer(sent.hash, (x) => x.state === 'pending');
    await base.revert(before);
    await base.mine(CONFIRMATIONS + 1);
    expect(await waitTransfer(sent.hash, (x) => x.state !== 'pending')).toMatchObject({ state: 'removed', outcome: null });
    await jobRuns(db(), 'chain-watch:base', 1);
    expect((await topupRow(topup.id)).status).toBe('requested');
    expect(await balanceOf(client, 'USDC')).toBe('0.000000');
    expect(await legsOf(payerId)).toEqual([]);
    expect(await home(client)).toContain('Waiting for your transfer.');

    const resent = await base.transfer(usdc, payee, topup.amount);
    await base.mine(CONFIRMATIONS - 1);
    expect(await waitTransfer(resent.hash, (x) => x.state === 'confirmed')).toMatchObject({ outcome: 'credited' });
    expect(await balanceOf(client, 'USDC')).toBe(topup.amount);
    expect(await transferOf(sent.hash)).toMatchObject({ state: 'removed' });
    await expectPayerLedgerBalanced(s);
  });

  it('a top-up and an intent on the same address never get the same amount, whichever asks first', async () => {
    const liveKey = s.merchant.keys.live_secret!;
    const intent = async () => {
      const r = await s.call('live', 'POST', '/payment-intents', {
        key: liveKey,
        body: { amount: '20.00', currency: 'USD', settlement_currency: 'USDT' },
      });
      expect(r.status, r.text).toBe(201);
      return r.json;
    };
    const walletAmount = async (pi: any) => {
      const r = await pay(s, await openCheckout(s, pi.checkout_url, 'live'), { method: 'external_wallet', network: 'base' });
      expect(r.status, r.text).toBe(200);
      return r.json.next_action.amount as string;
    };
    const first = await intent();
    const due = first.pay_amount as string;
    const a = await signedUpPayer(s, 'same-a@topups.example');
    const b = await signedUpPayer(s, 'same-b@topups.example');
    const amounts = [await walletAmount(first), (await topupOf(a.client, due)).amount];
    const second = await intent();
    expect(second.pay_amount).toBe(due);
    amounts.push((await topupOf(b.client, due)).amount, await walletAmount(second));
    expect(new Set(amounts).size).toBe(4);
    const open = await db()
      .selectFrom('wallet_allocations')
      .select(['amount', 'payment_intent_id', 'payer_topup_id'])
      .where('state', '=', 'open')
      .where('address', '=', payee)
      .where('asset', '=', 'USDT')
      .execute();
    expect(new Set(open.map((o) => o.amount)).size).toBe(open.length);
    expect(open.filter((o) => amounts.includes(o.amount))).toHaveLength(4);

    // The intent's amount pays the intent, never a top-up; the top-up's credits its payer only.
    const toIntent = await base.transfer(usdt, payee, amounts[0]!);
    const toTopup = await base.transfer(usdt, payee, amounts[1]!);
    await base.mine(CONFIRMATIONS - 1);
    expect(await waitTransfer(toIntent.hash, (x) => x.state === 'confirmed')).toMatchObject({
      outcome: 'credited',
      payment_intent_id: first.id,
      payer_topup_id: null,
    });
    expect(await waitTransfer(toTopup.hash, (x) => x.state === 'confirmed')).toMatchObject({
      outcome: 'credited',
      payment_intent_id: null,
    });
    expect((await s.call('live', 'GET', `/payment-intents/${first.id}`, { key: liveKey })).json.status).toBe('paid');
    expect(await balanceOf(a.client)).toBe(amounts[1]);
    expect(await balanceOf(b.client)).toBe('0.000000');
  });

  it('another payer never sees a top-up, and asking the same amount gets an amount of its own', async () => {
    const a = await signedUpPayer(s, 'iso-a@topups.example');
    const b = await signedUpPayer(s, 'iso-b@topups.example');
    const mine = await topupOf(a.client, '13');
    const bHtml = await home(b.client);
    expect(bHtml).not.toContain(mine.amount);
    expect(bHtml).not.toContain('class="topup-amount"');
    const theirs = await topupOf(b.client, '13');
    expect(theirs.amount).not.toBe(mine.amount);
    const sent = await base.transfer(usdt, payee, mine.amount);
    await base.mine(CONFIRMATIONS - 1);
    await waitTransfer(sent.hash, (x) => x.state === 'confirmed');
    expect(await balanceOf(a.client)).toBe(mine.amount);
    expect(await balanceOf(b.client)).toBe('0.000000');
    expect((await topupRow(theirs.id)).status).toBe('requested');
    expect(await home(b.client)).toContain(theirs.amount);
  });

  it('the sandbox wallet has no on-chain top-ups, and a live credit never reaches the sandbox payer of the same email', async () => {
    const live = await signedUpPayer(s, 'both@topups.example', 'live');
    const sandbox = await signedUpPayer(s, 'both@topups.example', 'test');
    const sandboxHome = await home(sandbox.client);
    expect(sandboxHome).toContain('On-chain top-ups are for live wallets');
    expect(sandboxHome).not.toContain('action="/wallet/topups/chain"');
    const refused = await askTopup(sandbox.client, { amount: '14' });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('On-chain top-ups are for live wallets');
    expect(await db().selectFrom('payer_chain_topups').selectAll().where('payer_id', '=', sandbox.payerId).execute()).toEqual([]);
    // The live session is not a sandbox one, nor the other way round.
    const crossed = new WalletClient(s.url('test', ''));
    crossed.session = live.client.session;
    expect((await crossed.request('GET', '/wallet')).status).toBe(303);

    const topup = await topupOf(live.client, '14');
    const sent = await base.transfer(usdt, payee, topup.amount);
    await base.mine(CONFIRMATIONS - 1);
    await waitTransfer(sent.hash, (x) => x.state === 'confirmed');
    expect(await balanceOf(live.client)).toBe(topup.amount);
    expect(await balanceOf(sandbox.client)).toBe('0.000000');
    expect(await legsOf(sandbox.payerId)).toEqual([]);
  });

  it.skipIf(!HAVE_CHROMIUM)(
    'in a browser at a phone width: a form error, then the address and exact amount, with no serious axe violation',
    async () => {
      await signedUpPayer(s, 'browser@topups.example');
      const browser = await launchChromium({ width: 390, height: 844 });
      try {
        const page = await browser.context.newPage();
        await signInInBrowser(page, s, 'browser@topups.example');
        expect(await axeSeriousViolations(page), 'wallet with the top-up form').toEqual([]);
        // The page has a withdrawal form too, with fields of the same names: the top-up's own form.
        const topup = page.locator('form[action="/wallet/topups/chain"]');
        await topup.getByLabel('Amount').fill('0.5');
        await page.getByRole('button', { name: 'Get the address and exact amount' }).click();
        await expect.poll(() => page.getByRole('alert').textContent()).toContain('Enter an amount from 1 to 1000000 USDT');
        expect(await axeSeriousViolations(page), 'top-up form error').toEqual([]);
        await topup.getByLabel('Amount').fill('16');
        await topup.getByLabel('Asset').selectOption('USDC');
        await page.getByRole('button', { name: 'Get the address and exact amount' }).click();
        await page.waitForURL(/\/wallet\?done=topup$/);
        expect(await page.locator('.topup-amount').textContent()).toMatch(/^16\.00\d{4} USDC$/);
        expect(await page.locator('.topup-address').textContent()).toBe(payee);
        expect(await axeSeriousViolations(page), 'wallet with a waiting top-up').toEqual([]);
        expect(browser.cspViolations).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );

  it('a top-up asked more than 24 hours ago no longer matches: its late transfer is unmatched and it shows no more', async () => {
    const { client, payerId } = await signedUpPayer(s, 'late@topups.example');
    const topup = await topupOf(client, '15');
    clock.advance(24 * 3_600_000 + 60_000);
    await client.login('late@topups.example');
    const html = await home(client);
    expect(html).not.toContain(topup.amount);
    expect((await topupRow(topup.id)).status).toBe('expired');
    const late = await base.transfer(usdt, payee, topup.amount);
    await base.mine(CONFIRMATIONS - 1);
    expect(await waitTransfer(late.hash, (x) => x.state === 'confirmed')).toMatchObject({
      outcome: 'unmatched',
      reason: 'topup_expired',
      payer_topup_id: topup.id,
    });
    expect(await balanceOf(client)).toBe('0.000000');
    expect(await legsOf(payerId)).toEqual([]);
    // Its amount is still held for a day after it ended: a new top-up of the same amount gets another one.
    expect((await topupOf(client, '15')).amount).not.toBe(topup.amount);
    await expectPayerLedgerBalanced(s);
  });
});
