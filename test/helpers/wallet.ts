// What the payer-account tests share: a browser-like client of the wallet's pages on one origin (its form
// and session cookies, the CSRF token read from a page), and paying a checkout from the balance as the
// checkout's script does (the page's token in a header and a cookie, the wallet's session cookie beside it).
import { Decimal } from 'decimal.js';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestServer } from './harness.js';
import { openCheckout, pathOf } from './checkout.js';

export const PAYER_PASSWORD = 'correct horse battery';
export const PAYER_PIN = '246810';

export interface WalletResponse {
  status: number;
  html: string;
  location: string | null;
}

let nextAddress = 0;
/** A client address of its own for each client (told by X-Forwarded-For to servers that trust the proxy). */
const freshAddress = () => `203.0.113.${(nextAddress++ % 250) + 1}`;

/** A wallet client on one origin of `s` (or on a base URL, another process of the same database). */
export class WalletClient {
  private formCookie = '';
  session = '';

  constructor(
    private readonly base: string,
    private readonly ip = freshAddress(),
  ) {}

  static of(s: TestServer, env: 'live' | 'test' = 'live', ip?: string): WalletClient {
    return new WalletClient(s.url(env, ''), ip);
  }

  get cookie(): string {
    return [this.formCookie, this.session].filter(Boolean).join('; ');
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    form?: Record<string, string>,
    extra: Record<string, string> = {},
  ): Promise<WalletResponse> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...extra };
    if (this.cookie) headers['cookie'] = this.cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: 'manual',
    });
    for (const c of res.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      if (pair.startsWith('cowrie_wallet_form=')) this.formCookie = pair;
      if (pair.startsWith('cowrie_wallet=')) this.session = /Max-Age=0/.test(c) ? '' : pair;
    }
    return { status: res.status, html: await res.text(), location: res.headers.get('location') };
  }

  /** The CSRF token of a page's forms. */
  static csrfOf(html: string): string {
    return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  }

  async signUp(email: string, password = PAYER_PASSWORD, pin = PAYER_PIN, ret?: string): Promise<WalletResponse> {
    const page = await this.request('GET', `/wallet/signup${ret ? `?return=${encodeURIComponent(ret)}` : ''}`);
    const form: Record<string, string> = { _csrf: WalletClient.csrfOf(page.html), email, password, pin };
    if (ret) form['return'] = ret;
    return this.request('POST', '/wallet/signup', form);
  }

  async login(email: string, password = PAYER_PASSWORD, code?: string): Promise<WalletResponse> {
    const page = await this.request('GET', '/wallet/login');
    return this.request('POST', '/wallet/login', {
      _csrf: WalletClient.csrfOf(page.html),
      email,
      password,
      ...(code ? { code } : {}),
    });
  }

  /** Asks for a withdrawal from the wallet page's form (its CSRF token and one-time key read from the page), with `pin`. */
  async withdraw(body: { amount: string; address: string; asset?: string; network?: string }, pin = PAYER_PIN): Promise<WalletResponse> {
    return this.request('POST', '/wallet/payouts', await this.withdrawalForm(body, pin));
  }

  /** The withdrawal form as the wallet page draws it (CSRF token, one-time key), filled in: to send once or more. */
  async withdrawalForm(body: { amount: string; address: string; asset?: string; network?: string }, pin = PAYER_PIN) {
    const page = await this.request('GET', '/wallet');
    const requestKey = /name="request_key" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
    return { _csrf: WalletClient.csrfOf(page.html), request_key: requestKey, asset: 'USDT', network: 'BASE', ...body, pin };
  }

  /** Opens an intent's checkout and pays it from the balance with `pin`, as the checkout's script does. */
  async payFromBalance(checkoutUrl: string, pin: string): Promise<{ status: number; json: any }> {
    const path = pathOf(checkoutUrl);
    const page = await fetch(`${this.base}${path}`, { headers: this.session ? { cookie: this.session } : {} });
    const html = await page.text();
    const token = /<meta name="checkout-token" content="([^"]+)">/.exec(html)?.[1] ?? '';
    const checkoutCookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
    const res = await fetch(`${this.base}${path}/pay`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-checkout-token': token,
        cookie: [checkoutCookie, this.session].filter(Boolean).join('; '),
      },
      body: JSON.stringify({ method: 'service_balance', pin }),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  }
}

/** A live payer signed up through the wallet's pages; answers the client (signed in) and the payer's id. */
export async function signedUpPayer(s: TestServer, email: string, env: 'live' | 'test' = 'live', ip?: string) {
  const client = WalletClient.of(s, env, ip);
  const r = await client.signUp(email);
  expect(r.status, r.html).toBe(303);
  expect(client.session).not.toBe('');
  const row = await s.running.database.db
    .selectFrom('payers')
    .selectAll()
    .where('email', '=', email)
    .where('environment', '=', env)
    .executeTakeFirstOrThrow();
  return { client, payerId: row.id };
}

/** Credits (or debits) a payer's balance by the operator's adjustment. */
export async function adjust(s: TestServer, payerId: string, amount: string, asset = 'USDT') {
  return s.running.services.payerAccounts.adjust(payerId, { amount, asset, reason: 'test funds' });
}

export { openCheckout };

/** The payers' ledger: every movement's legs sum to zero in its asset, and no payer's balance is below zero. */
export async function expectPayerLedgerBalanced(s: TestServer): Promise<void> {
  const legs = await s.running.database.db.selectFrom('payer_ledger_entries').selectAll().execute();
  const sum = (rows: typeof legs, key: (r: (typeof legs)[number]) => string) => {
    const out = new Map<string, Decimal>();
    for (const r of rows) out.set(key(r), (out.get(key(r)) ?? new Decimal(0)).plus(r.amount));
    return out;
  };
  for (const [k, v] of sum(legs, (r) => `${r.movement_id}/${r.asset}`))
    expect(v.isZero(), `movement ${k} sums to ${v.toFixed()}`).toBe(true);
  const balances = sum(
    legs.filter((r) => r.account === 'payer_balance'),
    (r) => `${r.payer_id}/${r.environment}/${r.asset}`,
  );
  for (const [k, v] of balances) expect(v.isNegative(), `balance ${k} is ${v.toFixed()}`).toBe(false);
}

/** Signs a payer (signed up with PAYER_PASSWORD) in on the live wallet's sign-in page in a browser. */
export async function signInInBrowser(page: Page, s: TestServer, email: string): Promise<void> {
  await page.goto(s.url('live', '/wallet/login'));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PAYER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/wallet$/);
}
