// The frame of every page of the wallet: the console's stylesheet from our own origin and no script at all
// (plain forms, each posting back with a CSRF token), built for keyboard and screen-reader use: a skip link,
// landmarks, a labelled control for every field, errors announced. Preact components rendered to a string
// on the server, as the console's pages (every text and attribute escaped by default).
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import type { PayerSession } from '../payer-auth.service.js';

export type Html = ComponentChildren;

export interface WalletContext {
  style: string;
  session: PayerSession | null;
  sandbox: boolean;
}

export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/** A whole page as HTML text: the frame around `body`. */
export function walletPage(ctx: WalletContext, title: string, body: Html): string {
  const s = ctx.session;
  const doc: VNode = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <meta name="robots" content="noindex" />
        <title>{`${title} · Cowrie wallet`}</title>
        <link rel="stylesheet" href={ctx.style} />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <span class="brand">{`Cowrie wallet${ctx.sandbox ? ' · Sandbox' : ''}`}</span>
          {s ? (
            <form method="post" action="/wallet/logout">
              <CsrfField token={s.csrf} />
              <span>{s.payer.email}</span>{' '}
              <button type="submit" class="link">
                Sign out
              </button>
            </form>
          ) : null}
        </header>
        <main id="main">
          <h1>{title}</h1>
          {body}
        </main>
      </body>
    </html>
  );
  return `<!doctype html>\n${render(doc)}`;
}

/** A page with one message: the form expired, nothing here. */
export function messagePage(ctx: WalletContext, status: 'expired' | 'absent'): string {
  return status === 'expired'
    ? walletPage(
        ctx,
        'Form expired',
        <div class="card">
          <p role="alert">This form has expired or did not come from the wallet; nothing was changed. Reload the page and try again.</p>
          <p>
            <a href="/wallet">Back to your wallet</a>
          </p>
        </div>,
      )
    : walletPage(ctx, 'Not found', <p>There is no wallet here.</p>);
}
