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
  { path: '/console/payments', label: 'Payments' },
  { path: '/console/refunds', label: 'Refunds' },
  { path: '/console/settlements', label: 'Settlements' },
  { path: '/console/links', label: 'Payment links' },
  { path: '/console/customers', label: 'Customers' },
  { path: '/console/reports', label: 'Reports' },
  { path: '/console/events', label: 'Events' },
  { path: '/console/developers', label: 'Developers' },
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

export function homePage(ctx: PageContext, data: { balances: BalanceEntry[]; payments: PaymentIntent[]; clock?: string }): string {
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
              `<tr><td><a href="/console/payments/${esc(p.id)}?env=${ctx.env ?? 'test'}"><code>${esc(p.id)}</code></a></td><td>${esc(p.currency)} ${esc(p.amount)}</td><td><span class="status">${esc(p.status)}</span></td><td>${esc(p.merchant_reference ?? '')}</td><td>${esc(p.created_at)}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(
    ctx,
    'Home',
    `<section aria-labelledby="h-balances"><h2 id="h-balances">Balances</h2>${balances}</section>
<section aria-labelledby="h-payments"><h2 id="h-payments">Recent payments</h2>${payments}</section>${data.clock ?? ''}`,
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
  opts: { error?: string; notice?: string; totpSetup?: { secret: string; uri: string; qr: string }; hasPin?: boolean },
): string {
  const s = ctx.session!;
  const pin =
    s.user.role === 'owner'
      ? `<section class="card" aria-labelledby="h-pin"><h2 id="h-pin">Transaction PIN</h2>
<p>${opts.hasPin ? 'A PIN is set. Change it here.' : 'No PIN yet: set one to refund balance payments.'}</p>
<form method="post" action="/console/account/pin">${csrfField(s)}
<label for="pin-password">Your password</label><input id="pin-password" name="password" type="password" autocomplete="current-password" required>
<label for="pin-new">New PIN (6 digits)</label><input id="pin-new" name="pin" type="password" inputmode="numeric" autocomplete="off" required>
<button type="submit">${opts.hasPin ? 'Change PIN' : 'Set PIN'}</button></form></section>`
      : '';
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
<section class="card" aria-labelledby="h-totp"><h2 id="h-totp">Two-step sign-in</h2>${totp}</section>${pin}`,
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

const STATUSES = ['awaiting_payment', 'confirming', 'paid', 'failed', 'expired', 'cancelled', 'refunded'];

export function paymentsPage(
  ctx: PageContext,
  data: { payments: PaymentIntent[]; status?: string; q?: string; next?: string; error?: string },
): string {
  const env = ctx.env ?? 'test';
  const rows =
    data.payments.length === 0
      ? '<p>No payments match.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Payments"><table><thead><tr><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead><tbody>${data.payments
          .map(
            (p) =>
              `<tr><td><a href="/console/payments/${esc(p.id)}?env=${env}"><code>${esc(p.id)}</code></a></td><td>${esc(p.currency)} ${esc(p.amount)}</td><td><span class="status">${esc(p.status)}</span></td><td>${esc(p.merchant_reference ?? '')}</td><td>${esc(p.created_at)}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(
    ctx,
    'Payments',
    `<form method="get" action="/console/payments" class="card" role="search"><input type="hidden" name="env" value="${env}">
<label for="q">Search by payment id or merchant reference</label><input id="q" name="q" type="text" value="${esc(data.q ?? '')}">
<label for="status">Status</label><select id="status" name="status"><option value="">Any</option>${STATUSES.map(
      (st) => `<option value="${st}"${data.status === st ? ' selected' : ''}>${st.replace('_', ' ')}</option>`,
    ).join('')}</select>
<button type="submit">Show payments</button></form>
${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}${rows}
${data.next ? `<p><a href="/console/payments?env=${env}${data.status ? `&amp;status=${esc(data.status)}` : ''}&amp;after=${esc(data.next)}">Next page</a></p>` : ''}`,
  );
}

export interface TimelineEvent {
  id: string;
  type: string;
  created_at: string;
  deliveries: Array<{
    id: string;
    url: string;
    status: string;
    attempts?: Array<{
      attempt: number;
      outcome: string;
      status_code: number | null;
      error: string | null;
      started_at: string;
      duration_ms: number | null;
    }>;
  }>;
}

export const DRIVER_OUTCOMES = [
  'success',
  'attempt_failed',
  'failed',
  'underpaid',
  'overpaid',
  'review',
  'expired',
  'cancelled',
  'duplicate',
  'dispute',
];
export const DRIVER_METHODS = ['service_balance', 'mpesa', 'card', 'paypal', 'external_wallet'];

export function paymentPage(
  ctx: PageContext,
  data: {
    payment: PaymentIntent;
    events: TimelineEvent[];
    attempts: Array<{
      id: string;
      payment_method: string;
      outcome: string;
      amount: string;
      asset: string;
      failure_code: string | null;
      created_at: number;
    }>;
    /** The rails' own attempts (an STK push, a PayPal approval, a card charge) with their state. */
    railAttempts: Array<{
      id: string;
      method: string;
      state: string;
      failure_code: string | null;
      provider_reference: string | null;
      created_at: number;
    }>;
    canDrive: boolean;
    /** The owner may refund this balance payment with the PIN. */
    canPinRefund?: boolean;
    notice?: string;
    error?: string;
  },
): string {
  const p = data.payment;
  const s = ctx.session!;
  const fields: Array<[string, string | null]> = [
    ['Status', p.status],
    ['Amount', `${p.currency} ${p.amount}`],
    ['Pays', `${p.pay_amount} ${p.settlement_currency}`],
    ['Received', `${p.amount_received} ${p.settlement_currency}`],
    ['Method', p.payment_method],
    ['Merchant reference', p.merchant_reference],
    ['Provider reference', p.provider_reference],
    ['Created', p.created_at],
    ['Expires', p.expires_at],
  ];
  const timeline =
    data.events.length === 0
      ? '<p>No events.</p>'
      : `<ol class="timeline">${data.events
          .map(
            (e) =>
              `<li><p><strong>${esc(e.type)}</strong> <span class="hint">${esc(e.created_at)} · <code>${esc(e.id)}</code></span></p>${
                e.deliveries.length === 0
                  ? '<p class="hint">No webhook endpoint subscribed.</p>'
                  : `<ul>${e.deliveries
                      .map(
                        (d) =>
                          `<li>Webhook to <code>${esc(d.url)}</code>: <span class="status">${esc(d.status)}</span>${
                            d.attempts && d.attempts.length > 0
                              ? `<ul>${d.attempts
                                  .map(
                                    (a) =>
                                      `<li>Attempt ${a.attempt}: ${esc(a.outcome)}${a.status_code === null ? '' : ` (HTTP ${a.status_code})`}${a.error ? ` — ${esc(a.error)}` : ''} <span class="hint">${esc(a.started_at)}${a.duration_ms === null ? '' : `, ${a.duration_ms} ms`}</span></li>`,
                                  )
                                  .join('')}</ul>`
                              : ''
                          }</li>`,
                      )
                      .join('')}</ul>`
              }</li>`,
          )
          .join('')}</ol>`;
  const attempts =
    data.attempts.length === 0
      ? '<p>No pay attempts yet.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Pay attempts"><table><thead><tr><th scope="col">When</th><th scope="col">Method</th><th scope="col">Outcome</th><th scope="col">Amount</th><th scope="col">Failure</th></tr></thead><tbody>${data.attempts
          .map(
            (a) =>
              `<tr><td>${esc(new Date(Number(a.created_at)).toISOString())}</td><td>${esc(a.payment_method)}</td><td>${esc(a.outcome)}</td><td>${esc(a.amount)} ${esc(a.asset)}</td><td>${esc(a.failure_code ?? '')}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  const driver = data.canDrive
    ? `<section class="card" aria-labelledby="h-driver"><h2 id="h-driver">Sandbox: drive this payment</h2>
<form method="post" action="/console/payments/${esc(p.id)}/simulate?env=test"><input type="hidden" name="_csrf" value="${esc(s.csrf)}">
<label for="outcome">Outcome</label><select id="outcome" name="outcome">${DRIVER_OUTCOMES.map((o) => `<option value="${o}">${o.replace('_', ' ')}</option>`).join('')}</select>
<label for="payment_method">Payment method</label><select id="payment_method" name="payment_method">${p.payment_methods
        .map((m) => `<option value="${esc(m)}">${esc(m.replace('_', ' '))}</option>`)
        .join('')}</select>
<button type="submit">Apply outcome</button></form></section>`
    : '';
  return page(
    ctx,
    `Payment ${p.id}`,
    `${data.notice ? `<p class="notice" role="status">${esc(data.notice)}</p>` : ''}${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}
<div class="card"><dl class="kv">${fields.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v ?? '—')}</dd>`).join('')}</dl></div>
${
  data.canPinRefund
    ? `<section class="card" aria-labelledby="h-refund"><h2 id="h-refund">Refund this balance payment</h2>
<form method="post" action="/console/payments/${esc(p.id)}/refund?env=${ctx.env ?? 'test'}"><input type="hidden" name="_csrf" value="${esc(s.csrf)}">
<label for="refund-pin">Transaction PIN</label><input id="refund-pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required>
<button type="submit">Refund ${esc(p.currency)} ${esc(p.amount)}</button></form></section>`
    : ''
}
${driver}
<section aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>${timeline}</section>
<section aria-labelledby="h-attempts"><h2 id="h-attempts">Pay attempts</h2>${attempts}</section>
<section aria-labelledby="h-rail"><h2 id="h-rail">Rail attempts</h2>${
      data.railAttempts.length === 0
        ? '<p>No rail attempts.</p>'
        : `<div class="table-wrap" tabindex="0" role="region" aria-label="Rail attempts"><table><thead><tr><th scope="col">When</th><th scope="col">Method</th><th scope="col">State</th><th scope="col">Failure</th><th scope="col">Provider reference</th></tr></thead><tbody>${data.railAttempts
            .map(
              (r) =>
                `<tr><td>${esc(new Date(r.created_at).toISOString())}</td><td>${esc(r.method)}</td><td>${esc(r.state)}</td><td>${esc(r.failure_code ?? '')}</td><td>${esc(r.provider_reference ?? '')}</td></tr>`,
            )
            .join('')}</tbody></table></div>`
    }</section>`,
  );
}

export function clockForm(s: ConsoleSession, now: string): string {
  return `<section class="card" aria-labelledby="h-clock"><h2 id="h-clock">Sandbox clock</h2><p>Sandbox time: <strong id="sandbox-now">${esc(now)}</strong></p>
<form method="post" action="/console/sandbox/clock?env=test"><input type="hidden" name="_csrf" value="${esc(s.csrf)}">
<label for="seconds">Move forward by (seconds)</label><input id="seconds" name="seconds" type="text" inputmode="numeric" required aria-describedby="seconds-hint">
<p class="hint" id="seconds-hint">3600 is an hour, 86400 a day. Expiry and settlements follow at once.</p>
<button type="submit">Advance the clock</button></form></section>`;
}

export interface KeyRowView {
  id: string;
  type: string;
  hint: string;
  scopes: string[];
  allowed_ips: string[];
  status: string;
  created_at: string;
  expires_at: string | null;
}

export interface EndpointRowView {
  id: string;
  url: string;
  status: string;
  events: string[];
  created_at: string;
}

/** Keys and webhook endpoints of one environment (developers and owners act; viewers read). */
export function developersPage(
  ctx: PageContext,
  data: {
    keys: KeyRowView[];
    endpoints: EndpointRowView[];
    scopes: readonly string[];
    canAct: boolean;
    shown?: { label: string; secret: string };
    notice?: string;
    error?: string;
  },
): string {
  const s = ctx.session!;
  const env = ctx.env ?? 'test';
  const q = `?env=${env}`;
  const hidden = `<input type="hidden" name="_csrf" value="${esc(s.csrf)}">`;
  const keyRows = data.keys
    .map(
      (k) =>
        `<tr><td><code>${esc(k.hint)}</code></td><td>${esc(k.type)}</td><td>${esc(k.scopes.join(', ') || '—')}</td><td>${esc(k.allowed_ips.join(', ') || '—')}</td><td><span class="status">${esc(k.status)}</span></td><td>${esc(k.created_at)}</td><td>${esc(k.expires_at ?? '—')}</td><td>${
          data.canAct && k.status === 'active'
            ? `<form method="post" action="/console/developers/keys/${esc(k.id)}/rotate${q}">${hidden}<label for="grace-${esc(k.id)}">Old key works for (hours)</label><input id="grace-${esc(k.id)}" name="hours" type="text" inputmode="numeric" value="24"><button type="submit" class="secondary">Rotate</button></form>
<form method="post" action="/console/developers/keys/${esc(k.id)}/revoke${q}">${hidden}<button type="submit" class="secondary" aria-label="Revoke ${esc(k.hint)}">Revoke</button></form>`
            : ''
        }</td></tr>`,
    )
    .join('');
  const keys = `<div class="table-wrap" tabindex="0" role="region" aria-label="API keys"><table><thead><tr><th scope="col">Key</th><th scope="col">Type</th><th scope="col">Scopes</th><th scope="col">Allowed addresses</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead><tbody>${keyRows}</tbody></table></div>`;
  const createKey = data.canAct
    ? `<form method="post" action="/console/developers/keys${q}" class="card">${hidden}<h3>Create a key</h3>
<label for="key-type">Type</label><select id="key-type" name="type"><option value="secret">Secret</option><option value="restricted">Restricted</option><option value="publishable">Publishable</option></select>
<fieldset><legend>Scopes (restricted keys)</legend>${data.scopes
        .map((sc) => `<label><input type="checkbox" name="scope" value="${esc(sc)}"> ${esc(sc)}</label>`)
        .join('')}</fieldset>
${env === 'live' ? '<label for="key-ips">Allowed addresses (comma-separated IPs or CIDR ranges; empty allows any)</label><input id="key-ips" name="allowed_ips" type="text">' : ''}
<button type="submit">Create key</button></form>`
    : '';
  const endpointRows = data.endpoints
    .map(
      (e) =>
        `<tr><td><a href="/console/developers/webhooks/${esc(e.id)}${q}"><code>${esc(e.url)}</code></a></td><td><span class="status">${esc(e.status)}</span></td><td>${esc(e.events.join(', ') || 'every type')}</td><td>${esc(e.created_at)}</td><td>${
          data.canAct
            ? `${
                e.status === 'enabled'
                  ? `<form method="post" action="/console/developers/webhooks/${esc(e.id)}/pause${q}">${hidden}<button type="submit" class="secondary" aria-label="Pause ${esc(e.url)}">Pause</button></form>`
                  : e.status === 'paused'
                    ? `<form method="post" action="/console/developers/webhooks/${esc(e.id)}/resume${q}">${hidden}<button type="submit" class="secondary" aria-label="Resume ${esc(e.url)}">Resume</button></form>`
                    : ''
              }<form method="post" action="/console/developers/webhooks/${esc(e.id)}/rotate${q}">${hidden}<button type="submit" class="secondary" aria-label="Rotate the secret of ${esc(e.url)}">Rotate secret</button></form><form method="post" action="/console/developers/webhooks/${esc(e.id)}/delete${q}">${hidden}<button type="submit" class="secondary" aria-label="Delete ${esc(e.url)}">Delete</button></form>`
            : ''
        }</td></tr>`,
    )
    .join('');
  const endpoints =
    data.endpoints.length === 0
      ? '<p>No webhook endpoints.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Webhook endpoints"><table><thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Events</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>${endpointRows}</tbody></table></div>`;
  const createEndpoint = data.canAct
    ? `<form method="post" action="/console/developers/webhooks${q}" class="card">${hidden}<h3>Add an endpoint</h3>
<label for="we-url">URL</label><input id="we-url" name="url" type="text" inputmode="url" required>
<label for="we-events">Event types (comma-separated; empty for every type)</label><input id="we-events" name="events" type="text">
<button type="submit">Add endpoint</button></form>`
    : '';
  return page(
    ctx,
    'Developers',
    `${data.notice ? `<p class="notice" role="status">${esc(data.notice)}</p>` : ''}${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}
${data.shown ? `<div class="card" role="status"><p><strong>${esc(data.shown.label)}</strong> It is shown this once: copy it now.</p><p><code id="shown-secret">${esc(data.shown.secret)}</code></p></div>` : ''}
<p>Every operation, its parameters and its errors: the <a href="/docs/api">API reference</a>.</p>
<section aria-labelledby="h-keys"><h2 id="h-keys">API keys</h2>${keys}${createKey}</section>
<section aria-labelledby="h-webhooks"><h2 id="h-webhooks">Webhook endpoints</h2>${endpoints}${createEndpoint}</section>`,
  );
}

/** One column of a list page: its heading and how a record shows in it (already escaped HTML). */
export interface Column<T> {
  heading: string;
  cell: (row: T) => string;
}

/** A list of records, newest first, with keyset paging by `after`. */
export function listPage<T>(
  ctx: PageContext,
  title: string,
  data: { rows: T[]; columns: Column<T>[]; next?: string; empty: string; before?: string; after?: string },
): string {
  const env = ctx.env ?? 'test';
  const table =
    data.rows.length === 0
      ? `<p>${esc(data.empty)}</p>`
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="${esc(title)}"><table><thead><tr>${data.columns
          .map((c) => `<th scope="col">${esc(c.heading)}</th>`)
          .join(
            '',
          )}</tr></thead><tbody>${data.rows.map((r) => `<tr>${data.columns.map((c) => `<td>${c.cell(r)}</td>`).join('')}</tr>`).join('')}</tbody></table></div>`;
  return page(
    ctx,
    title,
    `${data.before ?? ''}${table}${data.next ? `<p><a href="${ctx.path}?env=${env}&amp;after=${esc(data.next)}">Next page</a></p>` : ''}${data.after ?? ''}`,
  );
}
