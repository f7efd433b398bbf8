// The wallet's pages at /wallet (each origin its environment's): sign up, sign in, and the wallet itself
// (balances and every movement). Built like the console's: the console's stylesheet, no script, plain
// forms each carrying a CSRF token, a skip link, landmarks, a visible label for every field, errors
// announced; tables stack into cards on a phone.
import { formatAmount } from '../../shared/money.js';
import { PAYER_ASSETS, type PayerAsset } from '../ledger/index.js';
import type { Decimal } from '../../shared/money.js';
import type { PayerSession } from './payer-auth.service.js';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface WalletContext {
  style: string;
  session: PayerSession | null;
  sandbox: boolean;
}

export function walletPage(ctx: WalletContext, title: string, body: string): string {
  const s = ctx.session;
  const who = s
    ? `<form method="post" action="/wallet/logout"><input type="hidden" name="_csrf" value="${esc(s.csrf)}"><span>${esc(s.payer.email)}</span> <button type="submit" class="link">Sign out</button></form>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin"><meta name="robots" content="noindex">
<title>${esc(title)} · Cowrie wallet</title><link rel="stylesheet" href="${ctx.style}"></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">Cowrie wallet${ctx.sandbox ? ' · Sandbox' : ''}</span>${who}</header>
<main id="main"><h1>${esc(title)}</h1>
${body}
</main></body></html>`;
}

const errorBlock = (error: string | undefined) => (error ? `<p class="error" role="alert" id="form-error">${esc(error)}</p>` : '');
const described = (error: string | undefined) => (error ? ' aria-describedby="form-error"' : '');
const returnField = (ret: string | null) => (ret ? `<input type="hidden" name="return" value="${esc(ret)}">` : '');

export function signUpPage(ctx: WalletContext, opts: { csrf: string; error?: string; email?: string; ret: string | null }): string {
  return walletPage(
    ctx,
    'Open a wallet',
    `<div class="card narrow"><form method="post" action="/wallet/signup" novalidate>
${errorBlock(opts.error)}<input type="hidden" name="_csrf" value="${esc(opts.csrf)}">${returnField(opts.ret)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(opts.email ?? '')}"${described(opts.error)}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="12" aria-describedby="password-hint">
<p class="hint" id="password-hint">12 to 200 characters.</p>
<label for="pin">Transaction PIN</label>
<input id="pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required maxlength="6" pattern="[0-9]{6}" aria-describedby="pin-hint">
<p class="hint" id="pin-hint">6 digits. You enter it to confirm every payment; five wrong PINs in a row lock paying for 15 minutes.</p>
<button type="submit">Open my wallet</button></form>
<p>Have a wallet already? <a href="/wallet/login${opts.ret ? `?return=${encodeURIComponent(opts.ret)}` : ''}">Sign in</a>.</p></div>`,
  );
}

export function signInPage(ctx: WalletContext, opts: { csrf: string; error?: string; email?: string; ret: string | null }): string {
  return walletPage(
    ctx,
    'Sign in to your wallet',
    `<div class="card narrow"><form method="post" action="/wallet/login" novalidate>
${errorBlock(opts.error)}<input type="hidden" name="_csrf" value="${esc(opts.csrf)}">${returnField(opts.ret)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(opts.email ?? '')}"${described(opts.error)}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint">
<p class="hint" id="code-hint">Only if you turned on two-step sign-in.</p>
<button type="submit">Sign in</button></form>
<p>No wallet yet? <a href="/wallet/signup${opts.ret ? `?return=${encodeURIComponent(opts.ret)}` : ''}">Open one</a>.</p></div>`,
  );
}

const KIND_WORDS: Record<string, string> = {
  top_up: 'Top-up',
  payment: 'Payment',
  refund: 'Refund',
  adjustment: 'Adjustment by the operator',
  withdrawal: 'Withdrawal',
  withdrawal_reversal: 'Withdrawal returned',
};

export interface WalletMovement {
  id: string;
  kind: string;
  asset: PayerAsset;
  amount: Decimal;
  payment_intent: string | null;
  reason: string | null;
  created_at: number;
}

export function walletHomePage(
  ctx: WalletContext & { session: PayerSession },
  opts: {
    balances: Record<PayerAsset, Decimal>;
    movements: WalletMovement[];
    notice?: string;
    error?: string;
    totpSetup?: { secret: string; qr: string };
  },
): string {
  const balances = PAYER_ASSETS.map(
    (a) => `<li><span class="label">${a}</span> <strong id="balance-${a}">${esc(formatAmount(opts.balances[a], a))}</strong></li>`,
  ).join('');
  const rows = opts.movements
    .map((m) => {
      const detail = m.payment_intent ? `<code>${esc(m.payment_intent)}</code>` : m.reason ? esc(m.reason) : '';
      return `<tr><td data-label="When">${esc(new Date(m.created_at).toISOString().replace('T', ' ').slice(0, 16))} UTC</td><td data-label="What">${esc(KIND_WORDS[m.kind] ?? m.kind)}</td><td data-label="Amount">${m.amount.isNegative() ? '' : '+'}${esc(formatAmount(m.amount, m.asset))} ${m.asset}</td><td data-label="Details">${detail}</td></tr>`;
    })
    .join('\n');
  const table = opts.movements.length
    ? `<div class="table-wrap" tabindex="0" role="region" aria-label="Movements"><table><caption>Every credit and debit, newest first</caption><thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Amount</th><th scope="col">Details</th></tr></thead><tbody>
${rows}</tbody></table></div>`
    : '<p>No movements yet.</p>';
  return walletPage(
    ctx,
    'Your wallet',
    `${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}${opts.error ? `<p class="error" role="alert">${esc(opts.error)}</p>` : ''}
<section class="card" aria-labelledby="h-balances"><h2 id="h-balances">Balances</h2><ul class="balances" role="list">${balances}</ul>
<p class="hint">Pay any checkout that offers "Account balance" with these funds and your transaction PIN.</p></section>
<section class="card" aria-labelledby="h-movements"><h2 id="h-movements">Movements</h2>
${table}</section>
${totpSection(ctx.session, opts.totpSetup)}`,
  );
}

/** Two-step sign-in: on (turn off with the password), being set up (the key and a code to confirm), or off. */
function totpSection(s: PayerSession, setup: { secret: string; qr: string } | undefined): string {
  const csrf = `<input type="hidden" name="_csrf" value="${esc(s.csrf)}">`;
  const body = s.payer.totp
    ? `<p>Two-step sign-in is <strong>on</strong>.</p><form method="post" action="/wallet/totp/disable">${csrf}
<label for="totp-off-password">Password</label><input id="totp-off-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Turn off two-step sign-in</button></form>`
    : setup
      ? `<p>Scan this code with an authenticator app, or type the key, then enter the 6-digit code it shows.</p>
<img src="${setup.qr}" alt="QR code of your two-step sign-in key" width="180" height="180">
<p>Key: <code id="totp-secret">${esc(setup.secret)}</code></p>
<form method="post" action="/wallet/totp/confirm">${csrf}
<label for="totp-code">Code from the app</label><input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Turn on two-step sign-in</button></form>`
      : `<p>Two-step sign-in is off.</p><form method="post" action="/wallet/totp/start">${csrf}<button type="submit">Set up two-step sign-in</button></form>`;
  return `<section class="card" aria-labelledby="h-totp"><h2 id="h-totp">Two-step sign-in</h2>${body}</section>`;
}
