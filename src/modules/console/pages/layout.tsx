// The frame of every page of the merchant console: one stylesheet from our own origin and no script at all
// (plain forms, each posting back to the console with the session's CSRF token), built for keyboard and
// screen-reader use: a skip link, landmarks, a labelled control for every field, errors announced.
//
// Pages are preact components rendered to a string on the server (preact-render-to-string). We chose it
// over string templates and over @kitajs/html because it escapes every text child and attribute value by
// default (raw HTML needs the explicit, greppable `dangerouslySetInnerHTML`), so forgetting to escape
// cannot happen, and because TypeScript checks each element's attributes and each component's props at
// build time; no script is sent to the browser.
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { ConsoleRole } from '../../../db/schema.js';
import type { ConsoleSession } from '../console-auth.service.js';

export type Env = 'test' | 'live';

/** What a page's parts are: preact elements, text, or nothing. */
export type Html = ComponentChildren;

const NAV: Array<{ path: string; label: string; roles?: readonly ConsoleRole[] }> = [
  { path: '/console', label: 'Home' },
  { path: '/console/payments', label: 'Payments' },
  { path: '/console/refunds', label: 'Refunds' },
  { path: '/console/settlements', label: 'Settlements' },
  { path: '/console/payouts', label: 'Payouts' },
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

/** The hidden field carrying the session's CSRF token, in every form that changes something. */
export const CsrfField = ({ session }: { session: ConsoleSession }) => <input type="hidden" name="_csrf" value={session.csrf} />;

function Header({ ctx }: { ctx: PageContext }) {
  const s = ctx.session;
  return (
    <header class="top">
      <span class="brand">Cowrie{ctx.merchantName ? ` · ${ctx.merchantName}` : ''}</span>
      {s && ctx.env ? (
        <p class="env" aria-label="Environment">
          {(['test', 'live'] as const).map((e) => (
            <a href={`${ctx.path}?env=${e}`} aria-current={ctx.env === e ? 'true' : undefined}>
              {e === 'test' ? 'Test' : 'Live'}
            </a>
          ))}
        </p>
      ) : null}
      {s ? (
        <nav aria-label="Console">
          <ul>
            {NAV.filter((n) => !n.roles || n.roles.includes(s.user.role)).map((n) => (
              <li>
                <a href={n.path} aria-current={n.path === ctx.path ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      {s ? (
        <form method="post" action="/console/logout">
          <CsrfField session={s} />
          <span>
            {s.user.email} ({s.user.role})
          </span>{' '}
          <button type="submit" class="link">
            Sign out
          </button>
        </form>
      ) : null}
    </header>
  );
}

/** A whole page as HTML text: the frame around `body`. */
export function page(ctx: PageContext, title: string, body: Html): string {
  const doc: VNode = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <meta name="robots" content="noindex" />
        <title>{`${title} · Cowrie console`}</title>
        <link rel="stylesheet" href={ctx.style} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <Header ctx={ctx} />
        <main id="main">
          <h1>{title}</h1>
          {body}
        </main>
      </body>
    </html>
  );
  return `<!doctype html>\n${render(doc)}`;
}

/** The notice (role status) and error (role alert) a page shows after an action. */
export function Messages({ notice, error }: { notice?: string | undefined; error?: string | undefined }) {
  return (
    <>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
}

export function messagePage(ctx: PageContext, title: string, text: string): string {
  return page(
    ctx,
    title,
    <div class="card">
      <p role="alert">{text}</p>
      <p>
        <a href="/console">Back to the console</a>
      </p>
    </div>,
  );
}
