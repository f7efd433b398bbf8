// The frame of every page of the signed-in HTML areas (the merchant console, the payer's wallet): one
// stylesheet from our own origin and no script at all (plain forms, each posting back with a CSRF token),
// built for keyboard and screen-reader use: a skip link, landmarks, a labelled control for every field,
// errors announced. Each area draws its own header and what its main landmark holds.
//
// Pages are preact components rendered to a string on the server (preact-render-to-string), chosen over
// string templates because every text child and attribute value is escaped by default (raw HTML needs the
// explicit, greppable `dangerouslySetInnerHTML`) and TypeScript checks each element's attributes and each
// component's props at build time.
import type { ComponentChildren, VNode } from 'preact';
import { render } from 'preact-render-to-string';
import { formatMoney } from '../display.js';

/** What a page's parts are: preact elements, text, or nothing. */
export type Html = ComponentChildren;

/** The hidden field carrying the CSRF token, in every form that changes something. */
export const CsrfField = ({ token }: { token: string }) => <input type="hidden" name="_csrf" value={token} />;

/** Money as everyone reads it, the same in every area and the checkout: "KES 1,500.00" (shared/display.ts). */
export const Money = ({ amount, unit }: { amount: string; unit: string }) => <span class="money">{formatMoney(amount, unit)}</span>;

/** Who is signed in, and the button that signs them out (a form posting to `action`). */
export function SignOutForm({ action, csrf, who }: { action: string; csrf: string; who: string }) {
  return (
    <form method="post" action={action}>
      <CsrfField token={csrf} />
      <span>{who}</span>{' '}
      <button type="submit" class="link">
        Sign out
      </button>
    </form>
  );
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

/** A page's one message (a refusal, an expired form) and the way back. */
export function MessageCard({ text, back }: { text: string; back: { href: string; label: string } }) {
  return (
    <div class="card">
      <p role="alert">{text}</p>
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
    </div>
  );
}

export interface Frame {
  /** The page's heading, and its title before " · " and the area's name. */
  title: string;
  area: string;
  style: string;
  /** The area's header (its brand, navigation and sign-out). */
  header: Html;
}

/** A whole page as HTML text: the frame around `main`, the content of the main landmark under the heading. */
export function framedPage(frame: Frame, main: Html): string {
  const doc: VNode = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <meta name="robots" content="noindex" />
        <title>{`${frame.title} · ${frame.area}`}</title>
        <link rel="stylesheet" href={frame.style} />
        <link rel="icon" href="/favicon.ico" type="image/svg+xml" />
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        {frame.header}
        <main id="main">
          <h1>{frame.title}</h1>
          {main}
        </main>
      </body>
    </html>
  );
  return `<!doctype html>\n${render(doc)}`;
}
