// The signed-in user's own account: the password, two-step sign-in (TOTP) and, for owners, the merchant's
// transaction PIN.
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, Messages, page, type PageContext } from './layout.js';

export interface AccountPageOptions {
  error?: string;
  notice?: string;
  totpSetup?: { secret: string; uri: string; qr: string };
  hasPin?: boolean;
}

function PinSection({ s, opts }: { s: ConsoleSession; opts: AccountPageOptions }) {
  if (s.user.role !== 'owner') return null;
  return (
    <section class="card" aria-labelledby="h-pin">
      <h2 id="h-pin">Transaction PIN</h2>
      <p>{opts.hasPin ? 'A PIN is set. Change it here.' : 'No PIN yet: set one to refund balance payments.'}</p>
      <form method="post" action="/console/account/pin">
        <CsrfField session={s} />
        <label for="pin-password">Your password</label>
        <input id="pin-password" name="password" type="password" autocomplete="current-password" required />
        <label for="pin-new">New PIN (6 digits)</label>
        <input id="pin-new" name="pin" type="password" inputmode="numeric" autocomplete="off" required />
        <button type="submit">{opts.hasPin ? 'Change PIN' : 'Set PIN'}</button>
      </form>
    </section>
  );
}

function TotpSection({ s, opts }: { s: ConsoleSession; opts: AccountPageOptions }) {
  if (s.user.totp) {
    return (
      <>
        <p>
          Two-step sign-in is <strong>on</strong>.
        </p>
        <form method="post" action="/console/account/totp/disable">
          <CsrfField session={s} />
          <label for="totp-off-password">Password</label>
          <input id="totp-off-password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit" class="secondary">
            Turn off two-step sign-in
          </button>
        </form>
      </>
    );
  }
  if (opts.totpSetup) {
    return (
      <>
        <p>Scan this code with your authenticator app, or enter the key by hand, then enter the code it shows.</p>
        <img src={opts.totpSetup.qr} alt="QR code of your two-step sign-in key" width={180} height={180} />
        <p>
          Key: <code id="totp-secret">{opts.totpSetup.secret}</code>
        </p>
        <form method="post" action="/console/account/totp/confirm">
          <CsrfField session={s} />
          <label for="totp-code">Code from the app</label>
          <input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required />
          <button type="submit">Turn on two-step sign-in</button>
        </form>
      </>
    );
  }
  return (
    <>
      <p>Two-step sign-in is off.</p>
      <form method="post" action="/console/account/totp/start">
        <CsrfField session={s} />
        <button type="submit" class="secondary">
          Set up two-step sign-in
        </button>
      </form>
    </>
  );
}

export function accountPage(ctx: PageContext, opts: AccountPageOptions): string {
  const s = ctx.session!;
  return page(
    ctx,
    'Your account',
    <>
      <Messages notice={opts.notice} error={opts.error} />
      <section class="card" aria-labelledby="h-password">
        <h2 id="h-password">Change your password</h2>
        <form method="post" action="/console/account/password">
          <CsrfField session={s} />
          <label for="current">Current password</label>
          <input id="current" name="current" type="password" autocomplete="current-password" required />
          <label for="next">New password</label>
          <input id="next" name="next" type="password" autocomplete="new-password" required minLength={12} aria-describedby="next-hint" />
          <p class="hint" id="next-hint">
            12 characters or more. Your other sessions are signed out.
          </p>
          <button type="submit">Change password</button>
        </form>
      </section>
      <section class="card" aria-labelledby="h-totp">
        <h2 id="h-totp">Two-step sign-in</h2>
        <TotpSection s={s} opts={opts} />
      </section>
      <PinSection s={s} opts={opts} />
    </>,
  );
}
