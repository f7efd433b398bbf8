// The frame of every page of the merchant console: one stylesheet from our own origin and no script at all
// (plain forms, each posting back to the console with the session's CSRF token), built for keyboard and
// screen-reader use: a skip link, landmarks, a labelled control for every field, errors announced.
import type { ConsoleRole } from '../../../db/schema.js';
import type { ConsoleSession } from '../console-auth.service.js';

export type Env = 'test' | 'live';

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const NAV: Array<{ path: string; label: string; roles?: readonly ConsoleRole[] }> = [
  { path: '/console', label: 'Home' },
  { path: '/console/payments', label: 'Payments' },
  { path: '/console/refunds', label: 'Refunds' },
  { path: '/console/payouts', label: 'Payouts' },
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

/** The hidden field carrying the session's CSRF token, in every form that changes something. */
export const csrfField = (s: ConsoleSession) => `<input type="hidden" name="_csrf" value="${esc(s.csrf)}">`;

export function messagePage(ctx: PageContext, title: string, text: string): string {
  return page(ctx, title, `<div class="card"><p role="alert">${esc(text)}</p><p><a href="/console">Back to the console</a></p></div>`);
}
