// The frame of every page of the wallet: the shared frame of the signed-in areas (src/shared/pages/frame.tsx:
// the console's stylesheet from our own origin, no script, a skip link, landmarks) with the wallet's header
// (the brand, the sandbox named, who is signed in).
import { framedPage, MessageCard, SignOutForm, type Html } from '../../../shared/pages/frame.js';
import type { PayerSession } from '../payer-auth.service.js';

export { CsrfField, Messages, Money, type Html } from '../../../shared/pages/frame.js';

export interface WalletContext {
  style: string;
  session: PayerSession | null;
  sandbox: boolean;
}

/** A whole page as HTML text: the frame around `body`. */
export function walletPage(ctx: WalletContext, title: string, body: Html): string {
  const s = ctx.session;
  const header = (
    <header class="top">
      <span class="brand">{`Cowrie wallet${ctx.sandbox ? ' · Sandbox' : ''}`}</span>
      {s ? <SignOutForm action="/wallet/logout" csrf={s.csrf} who={s.payer.email} /> : null}
    </header>
  );
  return framedPage({ title, area: 'Cowrie wallet', style: ctx.style, header }, body);
}

/** A page with one message: the form expired, nothing here. */
export function messagePage(ctx: WalletContext, status: 'expired' | 'absent'): string {
  return status === 'expired'
    ? walletPage(
        ctx,
        'Form expired',
        <MessageCard
          text="This form has expired or did not come from the wallet; nothing was changed. Reload the page and try again."
          back={{ href: '/wallet', label: 'Back to your wallet' }}
        />,
      )
    : walletPage(ctx, 'Not found', <p>There is no wallet here.</p>);
}
