// The owner's team and the shop owner's sign-in safety nets, over real HTTP on both engines: the Team page
// (a user added with a one-time password that signs in, roles changed, users removed and signed out, never
// the last owner, each refusal changing nothing, other roles refused with 403), ten single-use recovery codes
// when TOTP is turned on (one signs in once instead of a code), `cowrie merchants create --owner-email`, the
// HTML 404 of unknown console paths and /favicon.ico on both listeners.
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliRunner } from './helpers/cli.js';
import { consoleHttp } from './helpers/console.js';
import { createTestDatabase, ENGINE, startTestServer, type TestDatabase, type TestServer } from './helpers/harness.js';

describe(`merchant console: team, recovery codes, 404 and favicon (${ENGINE})`, () => {
  let db: TestDatabase;
  let s: TestServer;
  const cli = cliRunner(() => db, []);
  let seq = 0;

  beforeAll(async () => {
    db = await createTestDatabase();
    s = await startTestServer({ databaseUrl: db.url });
  });
  afterAll(async () => {
    await s?.running.stop();
    await db?.drop();
  });

  const { request, login, signedInUser, csrfOf } = consoleHttp(() => s);
  const post = async (cookie: string, page: string, path: string, form: Record<string, string>) => {
    const html = (await request('GET', page, { cookie })).html;
    return request('POST', path, { cookie, form: { _csrf: csrfOf(html), ...form } });
  };
  const usersOf = (merchantId: string) =>
    s.running.database.db.selectFrom('console_users').select(['id', 'email', 'role']).where('merchant_id', '=', merchantId).execute();

  it('the owner adds a user with a one-time password shown once; it signs in with its role', async () => {
    const m = (await s.newMerchant({ name: `Team shop ${seq++}` })).merchant.id;
    const owner = await signedInUser(m, `owner${seq}@team.example`, 'owner');
    const added = await post(owner.cookie, '/console/team', '/console/team', { email: 'Clerk@Team.Example', role: 'viewer' });
    expect(added.status).toBe(200);
    const password = /<code id="new-password">([^<]+)<\/code>/.exec(added.html)![1]!;
    expect(password).toHaveLength(20);
    expect((await request('GET', '/console/team', { cookie: owner.cookie })).html).not.toContain(password);
    const clerk = await login('clerk@team.example', password);
    expect(clerk.status).toBe(303);
    // A viewer is not offered the Team page and is refused its forms.
    const home = await request('GET', '/console', { cookie: clerk.cookie });
    expect(home.html).not.toContain('href="/console/team"');
    expect((await request('GET', '/console/team', { cookie: clerk.cookie })).status).toBe(403);
    const csrf = csrfOf(home.html);
    const tries = [
      await request('POST', '/console/team', { cookie: clerk.cookie, form: { _csrf: csrf, email: 'x@team.example', role: 'owner' } }),
      await request('POST', '/console/team/time-zone', { cookie: clerk.cookie, form: { _csrf: csrf, time_zone: 'UTC' } }),
    ];
    for (const r of tries) expect(r.status).toBe(403);
    expect((await usersOf(m)).map((u) => u.email).sort()).toEqual(['clerk@team.example', `owner${seq}@team.example`]);
    // A taken email or a bad role is refused in words, and adds no one.
    const taken = await post(owner.cookie, '/console/team', '/console/team', { email: 'clerk@team.example', role: 'viewer' });
    expect(taken.status).toBe(400);
    expect(taken.html).toContain('exists already');
    expect((await post(owner.cookie, '/console/team', '/console/team', { email: 'n@team.example', role: 'boss' })).status).toBe(400);
    expect(await usersOf(m)).toHaveLength(2);
    // A form without the session's token changes nothing (403).
    const forged = await request('POST', '/console/team', {
      cookie: owner.cookie,
      form: { _csrf: 'x', email: 'f@team.example', role: 'owner' },
    });
    expect(forged.status).toBe(403);
    expect(await usersOf(m)).toHaveLength(2);
  });

  it('roles change and users are removed (signed out at once), never the last owner; another merchant is out of reach', async () => {
    const m = (await s.newMerchant({ name: `Team shop ${seq++}` })).merchant.id;
    const owner = await signedInUser(m, `owner${seq}@team.example`, 'owner');
    const dev = await signedInUser(m, `dev${seq}@team.example`, 'developer');
    const ownerId = (await usersOf(m)).find((u) => u.role === 'owner')!.id;
    const devId = (await usersOf(m)).find((u) => u.role === 'developer')!.id;
    // The last owner cannot be demoted nor removed.
    const demote = await post(owner.cookie, '/console/team', `/console/team/${ownerId}/role`, { role: 'viewer' });
    expect(demote.status).toBe(409);
    expect(demote.html).toContain('last owner');
    expect((await post(owner.cookie, '/console/team', `/console/team/${ownerId}/remove`, { confirm: 'yes' })).status).toBe(409);
    // Promote the developer; now the first owner may step down.
    expect((await post(owner.cookie, '/console/team', `/console/team/${devId}/role`, { role: 'owner' })).status).toBe(303);
    expect((await usersOf(m)).filter((u) => u.role === 'owner')).toHaveLength(2);
    // Removal needs its box ticked, then signs the user out.
    const unconfirmed = await post(owner.cookie, '/console/team', `/console/team/${devId}/remove`, {});
    expect(unconfirmed.status).toBe(400);
    expect(await usersOf(m)).toHaveLength(2);
    expect((await post(owner.cookie, '/console/team', `/console/team/${devId}/remove`, { confirm: 'yes' })).status).toBe(303);
    expect(await usersOf(m)).toHaveLength(1);
    expect((await request('GET', '/console', { cookie: dev.cookie })).location).toBe('/console/login');
    // Another merchant's user is not found.
    const other = (await s.newMerchant({ name: `Other ${seq++}` })).merchant.id;
    await signedInUser(other, `other${seq}@team.example`, 'viewer');
    const otherId = (await usersOf(other))[0]!.id;
    expect((await post(owner.cookie, '/console/team', `/console/team/${otherId}/role`, { role: 'owner' })).status).toBe(404);
    expect((await post(owner.cookie, '/console/team', `/console/team/${otherId}/remove`, { confirm: 'yes' })).status).toBe(404);
    expect((await usersOf(other))[0]!.role).toBe('viewer');
  });

  it('TOTP gives ten recovery codes, shown once; each signs in once instead of a code', async () => {
    const m = (await s.newMerchant({ name: `Team shop ${seq++}` })).merchant.id;
    const u = await signedInUser(m, `totp${seq}@team.example`, 'owner');
    const started = await post(u.cookie, '/console/account', '/console/account/totp/start', {});
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(started.html)![1]!;
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    const on = await request('POST', '/console/account/totp/confirm', {
      cookie: u.cookie,
      form: { _csrf: csrfOf(started.html), code: totp.generate() },
    });
    const codes = [...on.html.matchAll(/<li><code>([a-z0-9-]{19})<\/code><\/li>/g)].map((x) => x[1]!);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    // Stored hashed: no code is in the database.
    const stored = await s.running.database.db.selectFrom('console_recovery_codes').select('code_hash').execute();
    for (const c of codes) expect(stored.map((r) => r.code_hash)).not.toContain(c);
    const account = await request('GET', '/console/account', { cookie: u.cookie });
    expect(account.html).toContain('10 of 10 recovery codes unused');
    expect(account.html).not.toContain(codes[0]);
    const signedIn = await login(u.user.email, u.password, undefined, codes[0]!.toUpperCase());
    expect(signedIn.status).toBe(303);
    const again = await login(u.user.email, u.password, undefined, codes[0]);
    expect(again.status).toBe(401);
    expect(again.html).toContain('used already');
    expect((await login(u.user.email, u.password, undefined, 'abcd-efgh-jkmn-pqrs')).status).toBe(401);
    expect((await request('GET', '/console/account', { cookie: signedIn.cookie })).html).toContain('9 of 10 recovery codes unused');
    // New codes replace the old ones.
    const fresh = await post(signedIn.cookie, '/console/account', '/console/account/recovery-codes', {});
    const next = [...fresh.html.matchAll(/<li><code>([a-z0-9-]{19})<\/code><\/li>/g)].map((x) => x[1]!);
    expect(next).toHaveLength(10);
    expect((await login(u.user.email, u.password, undefined, codes[1])).status).toBe(401);
    expect((await login(u.user.email, u.password, undefined, next[0])).status).toBe(303);
  });

  it('cowrie merchants create --owner-email makes the owner with a one-time password (and refuses a taken email, making nothing)', async () => {
    const out = await cli.ok<{ merchant: { id: string }; owner: { user: Record<string, string>; password: string } }>(
      'merchants',
      'create',
      '--name',
      'Owner shop',
      '--owner-email',
      'Boss@Owner.Example',
      '--json',
    );
    expect(out.owner.user).toMatchObject({ email: 'boss@owner.example', role: 'owner', merchant: out.merchant.id });
    expect((await login('boss@owner.example', out.owner.password)).status).toBe(303);
    const text = await cli.cli('merchants', 'create', '--name', 'Text shop', '--owner-email', 'text@owner.example');
    expect(text.out).toMatch(/console password:\s+[A-Za-z0-9]{20}/);
    const before = await s.running.database.db.selectFrom('merchants').select('id').execute();
    const refused = await cli.fails('merchants', 'create', '--name', 'Again', '--owner-email', 'boss@owner.example', '--json');
    expect(refused.code).toBe('parameter_invalid');
    expect(await s.running.database.db.selectFrom('merchants').select('id').execute()).toHaveLength(before.length);
  });

  it('unknown console paths answer an HTML 404 page; /favicon.ico is an image on both listeners', async () => {
    const anon = await request('GET', '/console/nope');
    expect(anon.status).toBe(404);
    expect(anon.type).toMatch(/^text\/html/);
    expect(anon.html).toContain('Page not found');
    const m = (await s.newMerchant({ name: `Team shop ${seq++}` })).merchant.id;
    const u = await signedInUser(m, `nf${seq}@team.example`, 'viewer');
    const signed = await request('GET', '/console/payments/x/y/z', { cookie: u.cookie });
    expect(signed.status).toBe(404);
    expect(signed.html).toContain(`nf${seq}@team.example`);
    for (const env of ['test', 'live'] as const) {
      const icon = await fetch(s.url(env, '/favicon.ico'));
      expect(icon.status).toBe(200);
      expect(icon.headers.get('content-type')).toMatch(/^image\//);
      expect((await icon.text()).startsWith('<svg')).toBe(true);
    }
  });
});
