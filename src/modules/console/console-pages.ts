// Server-rendered pages of the merchant console: one stylesheet from our own origin and no script at all
// (plain forms, each posting back to the console with the session's CSRF token), built for keyboard and
// screen-reader use: a skip link, landmarks, a labelled control for every field, errors announced.
import type { AuditLogRow, ConsoleRole } from '../../db/schema.js';
import type { BalanceEntry } from '../balances/index.js';
import type { PaymentIntent } from '../payment-intents/index.js';
import type { ConsoleSession } from './console-auth.service.js';

export type Env = 'test' | 'live';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const NAV: Array<{ path: string; label: string; roles?: readonly ConsoleRole[] }> = [
  { path: '/console', label: 'Home' },
  { path: '/console/verification', label: 'Business verification' },
  { path: '/console/audit', label: 'Audit log', roles: ['owner'] },
  { path: '/console/account', label: 'Your account' },
];

export interface PageContext {
  style: string;
  session: ConsoleSession | null;
  /** The page's own path, for the navigation's current item and the environment switch. */
  path: string;
  env?: Env;
  /** The live side is reachable (the merchant is verified). */
  liveOpen?: boolean;
  merchantName?: string;
}

export function page(ctx: PageContext, title: string, body: string): string {
  const s = ctx.session;
  const nav = s
    ? `<nav aria-label="Console"><ul>${NAV.filter((n) => !n.roles || n.roles.includes(s.user.role))
        .map((n) => `<li><a href="${n.path}"${n.path === ctx.path ? ' aria-current="page"' : ''}>${esc(n.label)}</a></li>`)
        .join('')}</ul></nav>`
    : '';
  const env =
    s && ctx.env
      ? `<p class="env" aria-label="Environment">${(['test', 'live'] as const)
          .map((e) => `<a href="${ctx.path}?env=${e}"${ctx.env === e ? ' aria-current="true"' : ''}>${e === 'test' ? 'Test' : 'Live'}</a>`)
          .join('')}</p>`
      : '';
  const who = s
    ? `<form method="post" action="/console/logout"><input type="hidden" name="_csrf" value="${esc(s.csrf)}"><span>${esc(s.user.email)} (${s.user.role})</span> <button type="submit" class="link">Sign out</button></form>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin"><meta name="robots" content="noindex">
<title>${esc(title)} · Cowrie console</title><link rel="stylesheet" href="${ctx.style}"></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><span class="brand">Cowrie${ctx.merchantName ? ` · ${esc(ctx.merchantName)}` : ''}</span>${env}${nav}${who}</header>
<main id="main"><h1>${esc(title)}</h1>
${body}
</main></body></html>`;
}

export function loginPage(ctx: PageContext, opts: { error?: string; email?: string }): string {
  return page(
    ctx,
    'Sign in',
    `<div class="card narrow"><form method="post" action="/console/login" novalidate>
${opts.error ? `<p class="error" role="alert" id="login-error">${esc(opts.error)}</p>` : ''}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${esc(opts.email ?? '')}"${opts.error ? ' aria-describedby="login-error"' : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Authentication code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint">
<p class="hint" id="code-hint">Only if you turned on two-step sign-in.</p>
<button type="submit">Sign in</button></form></div>`,
  );
}

const csrfField = (s: ConsoleSession) => `<input type="hidden" name="_csrf" value="${esc(s.csrf)}">`;

export function homePage(ctx: PageContext, data: { balances: BalanceEntry[]; payments: PaymentIntent[] }): string {
  const balances =
    data.balances.length === 0
      ? '<p>No money yet in this environment.</p>'
      : `<div class="balances">${data.balances
          .map(
            (b) =>
              `<div class="card"><h3>${esc(b.asset)}</h3><dl class="kv"><dt>Available</dt><dd>${esc(b.available)}</dd><dt>Total</dt><dd>${esc(b.total)}</dd></dl></div>`,
          )
          .join('')}</div>`;
  const payments =
    data.payments.length === 0
      ? '<p>No payments yet in this environment.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Recent payments"><table><caption class="hint">The 10 most recent</caption><thead><tr><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead><tbody>${data.payments
          .map(
            (p) =>
              `<tr><td><code>${esc(p.id)}</code></td><td>${esc(p.currency)} ${esc(p.amount)}</td><td><span class="status">${esc(p.status)}</span></td><td>${esc(p.merchant_reference ?? '')}</td><td>${esc(p.created_at)}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(
    ctx,
    'Home',
    `<section aria-labelledby="h-balances"><h2 id="h-balances">Balances</h2>${balances}</section>
<section aria-labelledby="h-payments"><h2 id="h-payments">Recent payments</h2>${payments}</section>`,
  );
}

export function liveClosedPage(ctx: PageContext, status: string, reason: string | null): string {
  return page(
    ctx,
    'Live payments',
    `<div class="card"><p>Live payments open once your business is verified. Verification status: <strong>${esc(status.replace('_', ' '))}</strong>.</p>
${reason ? `<p>Why it was refused: ${esc(reason)}</p>` : ''}<p><a href="/console/verification">Business verification</a></p></div>`,
  );
}

const KYB_FIELDS: Array<[string, string, string]> = [
  ['legal_name', 'Legal name', 'organization'],
  ['registration_number', 'Registration number', 'off'],
  ['country', 'Country (two-letter code)', 'country'],
  ['address', 'Address', 'street-address'],
  ['contact_name', 'Contact name', 'name'],
  ['contact_email', 'Contact email', 'email'],
];

export function verificationPage(
  ctx: PageContext,
  v: { status: string; reason: string | null; details: Record<string, string> | null },
  opts: { error?: { message: string; param: string | null }; notice?: string; values?: Record<string, string> },
): string {
  const s = ctx.session!;
  const canSubmit = s.user.role === 'owner' && v.status !== 'verified' && v.status !== 'in_review';
  const values = opts.values ?? v.details ?? {};
  const status = `<dl class="kv"><dt>Status</dt><dd><span class="status" id="kyb-status">${esc(v.status.replace('_', ' '))}</span></dd>${
    v.reason ? `<dt>Reason</dt><dd id="kyb-reason">${esc(v.reason)}</dd>` : ''
  }</dl>`;
  const form = canSubmit
    ? `<form method="post" action="/console/verification" novalidate>${csrfField(s)}
${opts.error ? `<p class="error" role="alert" id="kyb-error">${esc(opts.error.message)}</p>` : ''}
${KYB_FIELDS.map(
  ([name, label, auto]) =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="${name === 'contact_email' ? 'email' : 'text'}" autocomplete="${auto}" required value="${esc(values[name] ?? '')}"${
      opts.error?.param === name ? ' aria-invalid="true" aria-describedby="kyb-error"' : ''
    }>`,
).join('\n')}
<button type="submit">Submit for verification</button></form>`
    : v.status === 'in_review'
      ? '<p>Your submission is being reviewed.</p>'
      : v.status === 'verified'
        ? '<p>Your business is verified: live payments are open.</p>'
        : '<p>The account owner submits the business verification.</p>';
  return page(
    ctx,
    'Business verification',
    `${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}<div class="card">${status}</div><div class="card">${form}</div>`,
  );
}

export function accountPage(
  ctx: PageContext,
  opts: { error?: string; notice?: string; totpSetup?: { secret: string; uri: string; qr: string } },
): string {
  const s = ctx.session!;
  const totp = s.user.totp
    ? `<p>Two-step sign-in is <strong>on</strong>.</p><form method="post" action="/console/account/totp/disable">${csrfField(s)}
<label for="totp-off-password">Password</label><input id="totp-off-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" class="secondary">Turn off two-step sign-in</button></form>`
    : opts.totpSetup
      ? `<p>Scan this code with your authenticator app, or enter the key by hand, then enter the code it shows.</p>
<img src="${opts.totpSetup.qr}" alt="QR code of your two-step sign-in key" width="180" height="180">
<p>Key: <code id="totp-secret">${esc(opts.totpSetup.secret)}</code></p>
<form method="post" action="/console/account/totp/confirm">${csrfField(s)}
<label for="totp-code">Code from the app</label><input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">Turn on two-step sign-in</button></form>`
      : `<p>Two-step sign-in is off.</p><form method="post" action="/console/account/totp/start">${csrfField(s)}<button type="submit" class="secondary">Set up two-step sign-in</button></form>`;
  return page(
    ctx,
    'Your account',
    `${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}${opts.error ? `<p class="error" role="alert">${esc(opts.error)}</p>` : ''}
<section class="card" aria-labelledby="h-password"><h2 id="h-password">Change your password</h2>
<form method="post" action="/console/account/password">${csrfField(s)}
<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="next">New password</label><input id="next" name="next" type="password" autocomplete="new-password" required minlength="12" aria-describedby="next-hint">
<p class="hint" id="next-hint">12 characters or more. Your other sessions are signed out.</p>
<button type="submit">Change password</button></form></section>
<section class="card" aria-labelledby="h-totp"><h2 id="h-totp">Two-step sign-in</h2>${totp}</section>`,
  );
}

export function auditPage(ctx: PageContext, rows: AuditLogRow[]): string {
  const body =
    rows.length === 0
      ? '<p>Nothing recorded yet.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Audit log"><table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">On</th><th scope="col">From</th></tr></thead><tbody>${rows
          .map(
            (r) =>
              `<tr><td>${esc(new Date(Number(r.created_at)).toISOString())}</td><td>${esc(r.actor)}</td><td><code>${esc(r.action)}</code></td><td>${r.target ? `<code>${esc(r.target)}</code>` : ''}</td><td>${esc(r.ip ?? '')}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(ctx, 'Audit log', body);
}

export function messagePage(ctx: PageContext, title: string, text: string): string {
  return page(ctx, title, `<div class="card"><p role="alert">${esc(text)}</p><p><a href="/console">Back to the console</a></p></div>`);
}
