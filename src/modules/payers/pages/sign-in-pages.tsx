// Opening a wallet (email, password, transaction PIN) and signing in (email, password, the TOTP code when
// on). Both carry the pre-session CSRF token and, from a checkout, where to go back to.
import { CsrfField, walletPage, type WalletContext } from './layout.js';

export interface SignInFormOptions {
  csrf: string;
  error?: string;
  email?: string;
  ret: string | null;
}

function FormError({ error }: { error?: string | undefined }) {
  return error ? (
    <p class="error" role="alert" id="form-error">
      {error}
    </p>
  ) : null;
}

const returnQuery = (ret: string | null) => (ret ? `?return=${encodeURIComponent(ret)}` : '');

function EmailField({ opts }: { opts: SignInFormOptions }) {
  return (
    <>
      <CsrfField token={opts.csrf} />
      {opts.ret ? <input type="hidden" name="return" value={opts.ret} /> : null}
      <label for="email">Email</label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="username"
        required
        value={opts.email ?? ''}
        aria-describedby={opts.error ? 'form-error' : undefined}
      />
    </>
  );
}

export function signUpPage(ctx: WalletContext, opts: SignInFormOptions): string {
  return walletPage(
    ctx,
    'Open a wallet',
    <div class="card narrow">
      <form method="post" action="/wallet/signup" noValidate>
        <FormError error={opts.error} />
        <EmailField opts={opts} />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="new-password"
          required
          minLength={12}
          aria-describedby="password-hint"
        />
        <p class="hint" id="password-hint">
          12 to 200 characters.
        </p>
        <label for="pin">Transaction PIN</label>
        <input
          id="pin"
          name="pin"
          type="password"
          inputmode="numeric"
          autocomplete="off"
          required
          maxLength={6}
          pattern="[0-9]{6}"
          aria-describedby="pin-hint"
        />
        <p class="hint" id="pin-hint">
          6 digits. You enter it to confirm every payment; five wrong PINs in a row lock paying for 15 minutes.
        </p>
        <button type="submit">Open my wallet</button>
      </form>
      <p>
        Have a wallet already? <a href={`/wallet/login${returnQuery(opts.ret)}`}>Sign in</a>.
      </p>
    </div>,
  );
}

export function signInPage(ctx: WalletContext, opts: SignInFormOptions): string {
  return walletPage(
    ctx,
    'Sign in to your wallet',
    <div class="card narrow">
      <form method="post" action="/wallet/login" noValidate>
        <FormError error={opts.error} />
        <EmailField opts={opts} />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <label for="code">Authentication code</label>
        <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint" />
        <p class="hint" id="code-hint">
          Only if you turned on two-step sign-in.
        </p>
        <button type="submit">Sign in</button>
      </form>
      <p>
        No wallet yet? <a href={`/wallet/signup${returnQuery(opts.ret)}`}>Open one</a>.
      </p>
    </div>,
  );
}
