// The merchant console's users and sessions, over real HTTP on both engines: the operator's `cowrie users
// create` and `reset-password`; sign-in with a server-side session behind an HttpOnly SameSite=Lax cookie
// (Secure when a trusted proxy says the request came over https; the same header from anyone else is
// ignored); five wrong passwords lock an account for 15 minutes; 20 sign-ins a minute per client address;
// CSRF tokens on every form; the 12-hour idle expiry; password change signing the other sessions out; TOTP;
// roles; business verification submitted by the owner and approved or refused by the operator; and the audit
// log. Each test signs in from its own client address (X-Forwarded-For from a trusted proxy), so the
// per-address limit is each test's own.
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import { cliRunner } from './helpers/cli.js';
import { consoleHttp } from './helpers/console.js';
import { createTestDatabase, ENGINE, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';

describe(`merchant console: users and sessions (${ENGINE})`, () => {
  let db: TestDatabase;
  let s: TestServer;
  const clock = new ManualClock(Date.now());
  const cli = cliRunner(() => db, []);
  let ipSeq = 10;
  const newIp = () => `203.0.113.${ipSeq++}`;

  beforeAll(async () => {
    db = await createTestDatabase();
    s = await startTestServer({ databaseUrl: db.url, clock, env: { COWRIE_TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(async () => {
    await s?.running.stop();
    await db?.drop();
  });

  const { request, login: signIn, csrfOf } = consoleHttp(() => s);
  const get = (path: string, cookie?: string) => request('GET', path, { cookie });
  const login = (email: string, password: string, ip: string, code?: string) => signIn(email, password, ip, code);

  /** A user of a fresh merchant, through the operator's command. */
  async function user(role: 'owner' | 'developer' | 'viewer', merchantId?: string) {
    const m = merchantId ?? (await s.newMerchant({ name: `Shop ${ipSeq}` })).merchant.id;
    const email = `${role}.${ipSeq++}@shop.example`;
    const out = await cli.ok<{ user: Record<string, string>; password: string }>(
      'users',
      'create',
      '--merchant',
      m,
      '--email',
      email,
      '--role',
      role,
      '--json',
    );
    return { merchantId: m, email, password: out.password, user: out.user };
  }

  it('cowrie users create prints the user and a generated password once, in the documented JSON', async () => {
    const m = (await s.newMerchant({ name: 'JSON shop' })).merchant.id;
    const out = await cli.ok<{ user: Record<string, string>; password: string }>(
      'users',
      'create',
      '--merchant',
      m,
      '--email',
      ' Ana@Shop.Example ',
      '--role',
      'developer',
      '--json',
    );
    expect(Object.keys(out).sort()).toEqual(['password', 'user']);
    expect(out.user).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Za-z]{24}$/),
      email: 'ana@shop.example',
      role: 'developer',
      merchant: m,
    });
    expect(out.password).toMatch(/^[A-Za-z0-9]{20}$/);
    // Only a hash is stored.
    const row = await s.running.database.db
      .selectFrom('console_users')
      .selectAll()
      .where('id', '=', out.user['id']!)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$1024\$8\$1\$/); // the tests' cost (test/helpers/test-env.ts)
    expect(row.password_hash).not.toContain(out.password);
    expect((await cli.fails('users', 'create', '--merchant', m, '--email', 'ana@shop.example', '--role', 'owner', '--json')).code).toBe(
      'parameter_invalid',
    );
    expect((await cli.fails('users', 'create', '--merchant', m, '--email', 'b@shop.example', '--role', 'admin', '--json')).code).toBe(
      'parameter_invalid',
    );
    expect(
      (await cli.fails('users', 'create', '--merchant', 'mer_nope', '--email', 'c@shop.example', '--role', 'owner', '--json')).code,
    ).toBe('resource_missing');
    expect((await cli.fails('users', 'create', '--merchant', m, '--email', 'not-an-email', '--role', 'owner', '--json')).code).toBe(
      'parameter_invalid',
    );
  });

  it('signs in to a server-side session behind an HttpOnly SameSite=Lax cookie; signs out', async () => {
    const u = await user('owner');
    const page = await get('/console/login');
    expect(page.status).toBe(200);
    expect(page.html).toContain('<label for="email">Email</label>');
    expect(page.html).toContain('<label for="password">Password</label>');
    expect((await get('/console')).location).toBe('/console/login');
    const ip = newIp();
    const ok = await login(u.email.toUpperCase(), u.password, ip);
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/console');
    expect(ok.setCookie).toMatch(/^cowrie_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Lax$/);
    const home = await get('/console', ok.cookie);
    expect(home.status).toBe(200);
    expect(home.html).toContain(u.email);
    // The token itself is not stored: only its SHA-256.
    const token = ok.cookie.split('=')[1]!;
    const sessions = await s.running.database.db.selectFrom('console_sessions').select('id').execute();
    expect(sessions.map((x) => x.id)).not.toContain(token);
    const out = await request('POST', '/console/logout', { cookie: ok.cookie, form: { _csrf: csrfOf(home.html) }, ip });
    expect(out.status).toBe(303);
    expect(out.setCookie).toContain('Max-Age=0');
    expect((await get('/console', ok.cookie)).location).toBe('/console/login');
  });

  it('behind a TLS-terminating proxy it trusts, the session cookie is also Secure (and its removal at sign-out)', async () => {
    const u = await user('owner');
    const ip = newIp();
    const ok = await request('POST', '/console/login', { form: { email: u.email, password: u.password }, ip, https: true });
    expect(ok.status).toBe(303);
    expect(ok.setCookie).toMatch(/^cowrie_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; Secure; SameSite=Lax$/);
    const cookie = ok.setCookie!.split(';')[0]!;
    const home = await request('GET', '/console', { cookie, ip, https: true });
    expect(home.status).toBe(200);
    const out = await request('POST', '/console/logout', { cookie, form: { _csrf: csrfOf(home.html) }, ip, https: true });
    expect(out.status).toBe(303);
    expect(out.setCookie).toMatch(/Max-Age=0;.*; Secure; SameSite=Lax$/);
  });

  it('five wrong passwords lock the account for 15 minutes; a success resets the count', async () => {
    const u = await user('viewer');
    const ip = newIp();
    for (let i = 0; i < 4; i++) expect((await login(u.email, 'wrong password', ip)).status).toBe(401);
    // A success resets the count: four more wrong ones do not lock.
    expect((await login(u.email, u.password, ip)).status).toBe(303);
    for (let i = 0; i < 4; i++) expect((await login(u.email, 'wrong password', ip)).status).toBe(401);
    const fifth = await login(u.email, 'wrong password', ip);
    expect(fifth.status).toBe(423);
    expect(fifth.html).toContain('locked for 15 minutes');
    // Locked: even the right password is refused, with no session.
    const locked = await login(u.email, u.password, ip);
    expect(locked.status).toBe(423);
    expect(locked.setCookie).toBeNull();
    clock.advance(15 * 60_000 + 1000);
    expect((await login(u.email, u.password, ip)).status).toBe(303);
    // An unknown email is told the same as a wrong password.
    const unknown = await login('nobody@shop.example', 'whatever', ip);
    expect(unknown.status).toBe(401);
    expect(unknown.html).toContain('The email or password is not right.');
  });

  it('20 sign-in attempts a minute per client address; the 21st is 429 (another address is not affected)', async () => {
    const u = await user('viewer');
    const ip = newIp();
    for (let i = 0; i < 20; i++) expect([401, 423]).toContain((await login('nobody@shop.example', 'x', ip)).status);
    const limited = await login(u.email, u.password, ip);
    expect(limited.status).toBe(429);
    expect(limited.setCookie).toBeNull();
    expect((await login(u.email, u.password, newIp())).status).toBe(303);
  });

  it('every form needs the session’s CSRF token and our own Origin: otherwise 403 and nothing changes', async () => {
    const u = await user('owner');
    const ip = newIp();
    const { cookie } = await login(u.email, u.password, ip);
    const form = {
      legal_name: 'Shop Ltd',
      registration_number: 'PVT-1',
      country: 'KE',
      address: '1 Moi Ave, Nairobi',
      contact_name: 'Ana',
      contact_email: 'ana@shop.example',
    };
    const status = async () =>
      (await s.running.database.db.selectFrom('merchants').select('kyb_status').where('id', '=', u.merchantId).executeTakeFirstOrThrow())
        .kyb_status;
    for (const extra of [{}, { _csrf: 'forged' }] as Record<string, string>[]) {
      const r = await request('POST', '/console/verification', { cookie, form: { ...form, ...extra }, ip });
      expect(r.status).toBe(403);
      expect(r.html).toContain('nothing was changed');
    }
    const page = await get('/console/verification', cookie);
    const csrf = csrfOf(page.html);
    const crossSite = await request('POST', '/console/verification', {
      cookie,
      form: { ...form, _csrf: csrf },
      ip,
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    expect(await status()).toBe('pending');
    // Without a session, a form sends the visitor to sign in.
    expect((await request('POST', '/console/verification', { form: { ...form, _csrf: csrf }, ip })).location).toBe('/console/login');
    const ok = await request('POST', '/console/verification', { cookie, form: { ...form, _csrf: csrf }, ip, origin: s.url('test') });
    expect(ok.status).toBe(303);
    expect(await status()).toBe('in_review');
  });

  it('business verification: the owner submits; the operator refuses with a reason or approves; live opens once verified', async () => {
    const u = await user('owner');
    const ip = newIp();
    const { cookie } = await login(u.email, u.password, ip);
    // Live is closed until verified: the live side shows the status.
    const live = await get('/console?env=live', cookie);
    expect(live.html).toContain('Live payments open once your business is verified');
    const page = await get('/console/verification', cookie);
    const csrf = csrfOf(page.html);
    const bad = await request('POST', '/console/verification', {
      cookie,
      form: { _csrf: csrf, legal_name: 'Shop Ltd', country: 'Kenya' },
      ip,
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('role="alert"');
    const form = {
      _csrf: csrf,
      legal_name: 'Shop Ltd',
      registration_number: 'PVT-2',
      country: 'ke',
      address: '2 Moi Ave',
      contact_name: 'Ana',
      contact_email: 'ana@shop.example',
    };
    expect((await request('POST', '/console/verification', { cookie, form, ip })).status).toBe(303);
    expect((await get('/console/verification', cookie)).html).toContain('in review');
    const rejected = await cli.ok<{ merchant: { kyb_status: string } }>(
      'merchants',
      'reject',
      u.merchantId,
      '--reason',
      'The registration number does not match the registry.',
      '--json',
    );
    expect(rejected.merchant.kyb_status).toBe('rejected');
    const seen = await get('/console/verification', cookie);
    expect(seen.html).toContain('The registration number does not match the registry.');
    // Submitted again after a refusal; then approved.
    expect((await request('POST', '/console/verification', { cookie, form: { ...form, registration_number: 'PVT-3' }, ip })).status).toBe(
      303,
    );
    const details = await s.running.database.db
      .selectFrom('merchants')
      .select(['kyb_status', 'kyb_details', 'kyb_reason'])
      .where('id', '=', u.merchantId)
      .executeTakeFirstOrThrow();
    expect(details.kyb_status).toBe('in_review');
    expect(details.kyb_reason).toBeNull();
    expect(JSON.parse(details.kyb_details!)).toMatchObject({ registration_number: 'PVT-3', country: 'KE' });
    await cli.ok('merchants', 'verify', u.merchantId, '--json');
    expect((await get('/console?env=live', cookie)).html).toContain('Recent payments');
    expect((await cli.fails('merchants', 'reject', u.merchantId, '--reason', 'late', '--json')).code).toBe('parameter_invalid');
  });

  it('roles: a viewer or developer may not submit verification nor read the audit log (not offered; 403 if sent)', async () => {
    const owner = await user('owner');
    for (const role of ['viewer', 'developer'] as const) {
      const u = await user(role, owner.merchantId);
      const ip = newIp();
      const { cookie } = await login(u.email, u.password, ip);
      const page = await get('/console/verification', cookie);
      expect(page.html).not.toContain('Submit for verification');
      expect(page.html).not.toContain('href="/console/audit"');
      const r = await request('POST', '/console/verification', { cookie, form: { _csrf: csrfOf(page.html), legal_name: 'X' }, ip });
      expect(r.status).toBe(403);
      expect((await get('/console/audit', cookie)).status).toBe(403);
    }
  });

  it('changing the password needs the current one and signs the other sessions out; reset-password by the operator', async () => {
    const u = await user('developer');
    const ip = newIp();
    const a = await login(u.email, u.password, ip);
    const b = await login(u.email, u.password, ip);
    const page = await get('/console/account', a.cookie);
    const csrf = csrfOf(page.html);
    expect(
      (
        await request('POST', '/console/account/password', {
          cookie: a.cookie,
          form: { _csrf: csrf, current: 'wrong', next: 'a new long password' },
          ip,
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await request('POST', '/console/account/password', {
          cookie: a.cookie,
          form: { _csrf: csrf, current: u.password, next: 'short' },
          ip,
        })
      ).status,
    ).toBe(400);
    const changed = await request('POST', '/console/account/password', {
      cookie: a.cookie,
      form: { _csrf: csrf, current: u.password, next: 'a new long password' },
      ip,
    });
    expect(changed.location).toBe('/console/account?done=password');
    expect((await get('/console', a.cookie)).status).toBe(200);
    expect((await get('/console', b.cookie)).location).toBe('/console/login');
    expect((await login(u.email, u.password, ip)).status).toBe(401);
    expect((await login(u.email, 'a new long password', ip)).status).toBe(303);
    const reset = await cli.ok<{ user: Record<string, string>; password: string }>('users', 'reset-password', u.email, '--json');
    expect(reset.user).toEqual(u.user);
    expect((await get('/console', a.cookie)).location).toBe('/console/login');
    expect((await login(u.email, 'a new long password', ip)).status).toBe(401);
    expect((await login(u.email, reset.password, ip)).status).toBe(303);
    expect((await cli.fails('users', 'reset-password', 'nobody@shop.example', '--json')).code).toBe('resource_missing');
  });

  it('two-step sign-in (TOTP): set up with a code from the key, then required at sign-in', async () => {
    const u = await user('owner');
    const ip = newIp();
    const { cookie } = await login(u.email, u.password, ip);
    const account = await get('/console/account', cookie);
    const started = await request('POST', '/console/account/totp/start', { cookie, form: { _csrf: csrfOf(account.html) }, ip });
    expect(started.status).toBe(200);
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(started.html)![1]!;
    expect(started.html).toMatch(/<img src="data:image\/png;base64,/);
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    expect(
      (await request('POST', '/console/account/totp/confirm', { cookie, form: { _csrf: csrfOf(account.html), code: '000000' }, ip }))
        .status,
    ).toBe(400);
    const confirmed = await request('POST', '/console/account/totp/confirm', {
      cookie,
      form: { _csrf: csrfOf(account.html), code: totp.generate() },
      ip,
    });
    expect(confirmed.location).toBe('/console/account?done=totp_on');
    const noCode = await login(u.email, u.password, ip);
    expect(noCode.status).toBe(401);
    expect(noCode.html).toContain('6-digit code');
    expect((await login(u.email, u.password, ip, '123456')).status).toBe(401);
    expect((await login(u.email, u.password, ip, totp.generate())).status).toBe(303);
  });

  it('a session ends after 12 hours without a request; a request renews it', async () => {
    const u = await user('viewer');
    const { cookie } = await login(u.email, u.password, newIp());
    clock.advance(11 * 3_600_000);
    expect((await get('/console', cookie)).status).toBe(200);
    clock.advance(11 * 3_600_000);
    expect((await get('/console', cookie)).status).toBe(200);
    clock.advance(12 * 3_600_000 + 1000);
    expect((await get('/console', cookie)).location).toBe('/console/login');
  });

  it('the audit log records who did what, when and from which address; the owner reads it', async () => {
    const u = await user('owner');
    const ip = newIp();
    await login(u.email, 'wrong password', ip);
    const { cookie } = await login(u.email, u.password, ip);
    const page = await get('/console/audit', cookie);
    expect(page.status).toBe(200);
    const rows = await s.running.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('merchant_id', '=', u.merchantId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action).sort()).toEqual(['login', 'login.failed', 'user.created'].sort());
    expect(rows.find((r) => r.action === 'login')).toMatchObject({ actor: u.email, ip, user_id: u.user['id'] });
    expect(rows.find((r) => r.action === 'user.created')).toMatchObject({ actor: 'operator', ip: null });
    expect(page.html).toContain('login.failed');
    expect(page.html).toContain(ip);
  });
});

describe(`merchant console: a server that trusts no proxy (${ENGINE})`, () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => s?.stop());
  const { request } = consoleHttp(() => s);

  it('believes no X-Forwarded-Proto: over plain http the session cookie is never marked Secure', async () => {
    const m = await s.newMerchant({ name: 'Plain http shop' });
    const u = await s.running.services.console.createUser(m.merchant.id, 'plain@shop.example', 'owner');
    const r = await request('POST', '/console/login', { form: { email: u.user.email, password: u.password }, https: true });
    expect(r.status).toBe(303);
    expect(r.setCookie).toMatch(/^cowrie_console=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Lax$/);
  });
});
