// `cowrie payers list|show|suspend|unsuspend|adjust [--json]` on SQLite and PostgreSQL, in-process against
// the database of a running server: the payers with their balances, one payer's movements, suspension that
// the checkout then refuses, and the audited ledger adjustment that never takes a balance below zero.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, createTestDatabase, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';
import { cliRunner } from './helpers/cli.js';
import { newIntent } from './helpers/ledger-invariant.js';
import { PAYER_PIN, signedUpPayer } from './helpers/wallet.js';

describe(`cowrie payers (${ENGINE})`, () => {
  let database: TestDatabase;
  let s: TestServer;
  const { cli, ok, fails } = cliRunner(() => database, []);

  beforeAll(async () => {
    database = await createTestDatabase();
    s = await startTestServer({ databaseUrl: database.url, noLiveRails: true, env: { COWRIE_PAYER_ACCOUNTS: 'on' } });
  });
  afterAll(async () => {
    await s?.stop();
    await database?.drop();
  });

  it('lists, shows, adjusts (audited, never below zero), suspends and unsuspends', async () => {
    const { client, payerId } = await signedUpPayer(s, 'ops@payers.example');
    await signedUpPayer(s, 'sandbox@payers.example', 'test');
    const list = await ok<any>('payers', 'list', '--environment', 'live', '--json');
    expect(list.object).toBe('list');
    expect(list.data.map((p: any) => p.id)).toEqual([payerId]);
    expect(list.data[0]).toMatchObject({ object: 'payer', email: 'ops@payers.example', status: 'active', livemode: true });
    expect(list.data[0].balances).toEqual([
      { asset: 'USDT', amount: '0.000000' },
      { asset: 'USDC', amount: '0.000000' },
    ]);
    expect((await ok<any>('payers', 'list', '--json')).data.length).toBe(2);

    const adjusted = await ok<any>(
      'payers',
      'adjust',
      payerId,
      '--amount',
      '30',
      '--asset',
      'usdt',
      '--reason',
      'bank transfer 123',
      '--json',
    );
    expect(adjusted.movement).toMatch(/^lmv_/);
    expect(adjusted.payer.balances[0]).toEqual({ asset: 'USDT', amount: '30.000000' });
    expect(adjusted.payer.movements[0]).toMatchObject({
      kind: 'adjustment',
      amount: '30.000000',
      asset: 'USDT',
      reason: 'bank transfer 123',
    });
    const overdraw = await fails('payers', 'adjust', payerId, '--amount', '-30.5', '--asset', 'USDT', '--reason', 'oops', '--json');
    expect(overdraw.code).toBe('insufficient_balance');
    expect((await fails('payers', 'adjust', payerId, '--amount', '1', '--asset', 'BTC', '--reason', 'x', '--json')).code).toBe(
      'parameter_invalid',
    );
    expect((await fails('payers', 'adjust', payerId, '--amount', '1.1234567', '--asset', 'USDT', '--reason', 'x', '--json')).code).toBe(
      'parameter_invalid',
    );
    expect((await fails('payers', 'adjust', payerId, '--amount', '0', '--asset', 'USDT', '--reason', 'x', '--json')).code).toBe(
      'parameter_invalid',
    );
    expect((await fails('payers', 'show', 'pyr_nothing', '--json')).code).toBe('resource_missing');
    const down = await ok<any>('payers', 'adjust', payerId, '--amount', '-5', '--asset', 'USDT', '--reason', 'correction', '--json');
    expect(down.payer.balances[0].amount).toBe('25.000000');

    const suspended = await ok<any>('payers', 'suspend', payerId, '--json');
    expect(suspended.payer.status).toBe('suspended');
    expect((await fails('payers', 'suspend', payerId, '--json')).code).toBe('payer_status_unchanged');
    const pi = await newIntent(s, { amount: '10.00', currency: 'USD' }, 'live');
    expect((await client.payFromBalance(pi.checkout_url, PAYER_PIN)).json.error.code).toBe('payer_suspended');
    await ok('payers', 'unsuspend', payerId, '--json');
    expect((await client.payFromBalance(pi.checkout_url, PAYER_PIN)).json.status).toBe('paid');

    const shown = await ok<any>('payers', 'show', payerId, '--json');
    expect(shown.payer.movements.map((m: any) => m.kind)).toEqual(['payment', 'adjustment', 'adjustment']);
    const human = await cli('payers', 'show', payerId);
    expect(human.code).toBe(0);
    expect(human.out).toContain('ops@payers.example');
    const audit = await s.running.database.db
      .selectFrom('payer_audit')
      .select(['action', 'actor'])
      .where('payer_id', '=', payerId)
      .execute();
    expect(
      audit
        .filter((a) => a.actor === 'operator')
        .map((a) => a.action)
        .sort(),
    ).toEqual(['payer.adjusted', 'payer.adjusted', 'payer.suspended', 'payer.unsuspended'].sort());
  });
});
