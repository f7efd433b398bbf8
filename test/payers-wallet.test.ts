// The wallet's pages on SQLite and PostgreSQL: opening a wallet (the console's password rule, a 6-digit
// PIN, one account per email and environment), signing in with the console's lockout (five wrong
// passwords lock for 15 minutes), the session cookie's attributes, CSRF on every form (a missing or
// foreign token or another origin answers 403 and changes nothing), the return to a checkout only, and
// signing out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, startTestServer, type TestServer } from './helpers/harness.js';
import * as OTPAuth from 'otpauth';
import { PAYER_PASSWORD, WalletClient, signedUpPayer } from './helpers/wallet.js';

describe(`the wallet's pages (${ENGINE})`, () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startTestServer({ noLiveRails: true, env: { COWRIE_PAYER_ACCOUNTS: 'on', COWRIE_TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => s?.stop());

  const payers = async () => (await s.running.database.db.selectFrom('payers').select('email').execute()).map((p) => p.email);

  it('opens a wallet with a session cookie of its own, HttpOnly and SameSite=Lax, and shows the balances', async () => {
    const client = WalletClient.of(s);
    const page = await client.request('GET', '/wallet/signup');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="pin">Transaction PIN</label>');
    const form = { _csrf: WalletClient.csrfOf(page.html), email: 'New.Payer@Example.com', password: PAYER_PASSWORD, pin: '135790' };
    const res = await fetch(s.url('live', '/wallet/signup'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: client.cookie },
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('cowrie_wallet='))!;
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const row = await s.running.database.db
      .selectFrom('payers')
      .selectAll()
      .where('email', '=', 'new.payer@example.com')
      .executeTakeFirstOrThrow();
    expect(row.id).toMatch(/^pyr_/);
    expect(row.environment).toBe('live');
    expect(row.pin_hash).not.toContain('135790');
    expect(row.password_hash).toMatch(/^scrypt\$/);
    const home = await fetch(s.url('live', '/wallet'), { headers: { cookie: cookie.split(';')[0]! } });
    const html = await home.text();
    expect(html).toContain('Your wallet');
    expect(html).toContain('id="balance-USDT"><span class="money">USDT 0.000000</span>');
  });

  it('refuses a short password, a PIN that is not 6 digits, a bad email and a second account of one email', async () => {
    const client = WalletClient.of(s);
    expect((await client.signUp('short@payers.example', 'too short')).html).toContain('12 to 200 characters');
    expect((await client.signUp('pin@payers.example', PAYER_PASSWORD, '12345')).html).toContain('6 digits');
    expect((await client.signUp('not an email')).html).toContain('valid email');
    await signedUpPayer(s, 'twice@payers.example');
    const again = await WalletClient.of(s).signUp('Twice@payers.example');
    expect(again.status).toBe(409);
    expect(again.html).toContain('exists already');
    expect(await payers()).not.toContain('short@payers.example');
    expect(await payers()).not.toContain('pin@payers.example');
  });

  it('refuses a form without a valid token or from another origin, and changes nothing', async () => {
    const bare = await fetch(s.url('live', '/wallet/signup'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'forged@payers.example', password: PAYER_PASSWORD, pin: '111111' }).toString(),
      redirect: 'manual',
    });
    expect(bare.status).toBe(403);
    const client = WalletClient.of(s);
    const page = await client.request('GET', '/wallet/signup');
    const form = { _csrf: WalletClient.csrfOf(page.html), email: 'foreign@payers.example', password: PAYER_PASSWORD, pin: '111111' };
    expect((await client.request('POST', '/wallet/signup', form, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await WalletClient.of(s).request('POST', '/wallet/signup', form)).status).toBe(403);
    expect(await payers()).not.toContain('forged@payers.example');
    expect(await payers()).not.toContain('foreign@payers.example');
    const { client: signedIn } = await signedUpPayer(s, 'logout@payers.example');
    expect((await signedIn.request('POST', '/wallet/logout', { _csrf: 'nope' })).status).toBe(403);
    expect((await signedIn.request('GET', '/wallet')).status).toBe(200);
  });

  it('locks sign-in for 15 minutes after five wrong passwords, with the same answer for an unknown email', async () => {
    await signedUpPayer(s, 'lock@payers.example', 'live', '198.51.100.21');
    const client = WalletClient.of(s, 'live', '198.51.100.22');
    const unknown = await client.login('nobody@payers.example');
    expect(unknown.status).toBe(401);
    expect(unknown.html).toContain('The email or password is not right.');
    for (let i = 0; i < 4; i++) expect((await client.login('lock@payers.example', 'wrong password!!')).status).toBe(401);
    const fifth = await client.login('lock@payers.example', 'wrong password!!');
    expect(fifth.status).toBe(423);
    const right = await client.login('lock@payers.example');
    expect(right.status).toBe(423);
    expect(right.html).toContain('locked');
    expect(client.session).toBe('');
  });

  it('signs in and goes back to the checkout it came from (only a checkout), then signs out', async () => {
    await signedUpPayer(s, 'back@payers.example', 'live', '198.51.100.31');
    const client = WalletClient.of(s, 'live', '198.51.100.32');
    const page = await client.request('GET', '/wallet/login?return=%2Fcheckout%2Fpi_abc123');
    expect(page.html).toContain('name="return" value="/checkout/pi_abc123"');
    const r = await client.request('POST', '/wallet/login', {
      _csrf: WalletClient.csrfOf(page.html),
      email: 'back@payers.example',
      password: PAYER_PASSWORD,
      return: '/checkout/pi_abc123',
    });
    expect(r.status).toBe(303);
    expect(r.location).toBe('/checkout/pi_abc123');
    const home = await client.request('GET', '/wallet');
    const out = await client.request('POST', '/wallet/logout', { _csrf: WalletClient.csrfOf(home.html) });
    expect(out.status).toBe(303);
    expect(client.session).toBe('');
    const other = WalletClient.of(s, 'live', '198.51.100.33');
    const p2 = await other.request('GET', '/wallet/login');
    const away = await other.request('POST', '/wallet/login', {
      _csrf: WalletClient.csrfOf(p2.html),
      email: 'back@payers.example',
      password: PAYER_PASSWORD,
      return: 'https://evil.example/',
    });
    expect(away.location).toBe('/wallet');
  });

  it('turns on two-step sign-in with a confirmed code; signing in then needs a code from the app', async () => {
    const { client } = await signedUpPayer(s, 'totp@payers.example', 'live', '198.51.100.41');
    const home = await client.request('GET', '/wallet');
    expect(home.html).toContain('Two-step sign-in is off.');
    const setup = await client.request('POST', '/wallet/totp/start', { _csrf: WalletClient.csrfOf(home.html) });
    expect(setup.status).toBe(200);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(setup.html)![1]!;
    expect(setup.html).toContain('alt="QR code of your two-step sign-in key"');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    const wrong = await client.request('POST', '/wallet/totp/confirm', { _csrf: WalletClient.csrfOf(setup.html), code: '000000' });
    expect(wrong.status).toBe(400);
    const on = await client.request('POST', '/wallet/totp/confirm', { _csrf: WalletClient.csrfOf(wrong.html), code: totp.generate() });
    expect(on.status).toBe(200);
    expect(on.html).toContain('Two-step sign-in is on.');
    const codes = [...on.html.matchAll(/<li><code>([a-z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes.length).toBe(10);
    expect((await client.request('GET', '/wallet')).html).not.toContain(codes[0]!);
    const again = WalletClient.of(s, 'live', '198.51.100.42');
    const noCode = await again.login('totp@payers.example');
    expect(noCode.status).toBe(401);
    expect(noCode.html).toContain('6-digit code');
    const withCode = await again.login('totp@payers.example', PAYER_PASSWORD, totp.generate());
    expect(withCode.status).toBe(303);
    expect(again.session).not.toBe('');
    const recovered = WalletClient.of(s, 'live', '198.51.100.43');
    expect((await recovered.login('totp@payers.example', PAYER_PASSWORD, codes[3]!.toUpperCase())).status).toBe(303);
    const reused = WalletClient.of(s, 'live', '198.51.100.44');
    expect((await reused.login('totp@payers.example', PAYER_PASSWORD, codes[3]!)).status).toBe(401);
    const page = await again.request('GET', '/wallet');
    const off = await again.request('POST', '/wallet/totp/disable', { _csrf: WalletClient.csrfOf(page.html), password: PAYER_PASSWORD });
    expect(off.location).toBe('/wallet?done=totp_off');
  });

  it('answers 429 after 20 sign-in and sign-up attempts a minute from one address, with nothing checked', async () => {
    const client = WalletClient.of(s, 'live', '198.51.100.51');
    for (let i = 0; i < 20; i++) expect((await client.login('nobody@payers.example')).status).toBe(401);
    const refused = await client.signUp('limited@payers.example');
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many attempts');
    expect(await payers()).not.toContain('limited@payers.example');
    expect((await WalletClient.of(s, 'live', '198.51.100.52').login('nobody@payers.example')).status).toBe(401);
  });

  it('has no live wallet when live payer accounts are off', async () => {
    const off = await startTestServer({ noLiveRails: true });
    try {
      expect((await fetch(off.url('live', '/wallet/signup'))).status).toBe(404);
      expect((await fetch(off.url('test', '/wallet/signup'))).status).toBe(200);
    } finally {
      await off.stop();
    }
  });
});
