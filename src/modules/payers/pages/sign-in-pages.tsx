// Opening a wallet (email, password, transaction PIN) and signing in (email, password, the TOTP code when
// on; the console's fields). Both carry the pre-session CSRF token and, from a checkout, where to go back to.
import { EmailField, FormError, PasswordField, SignInCard, SignInFields } from '../../../shared/pages/sign-in-fields.js';
import { CsrfField, type Html, walletPage, type WalletContext } from './layout.js';

export interface SignInFormOptions {
  csrf: string;
  error?: string;
  email?: string;
  ret: string | null;
}

interface WalletForm {
  title: string;
  action: string;
  submit: string;
  /** The way to the other form, which keeps where to go back to. */
  other: { text: string; path: string; label: string };
}

/** A wallet page of one form carrying the pre-session CSRF token and, from a checkout, where to go back to. */
function walletFormPage(ctx: WalletContext, opts: SignInFormOptions, form: WalletForm, fields: Html): string {
  const { text, path, label } = form.other;
  const back = opts.ret ? `?return=${encodeURIComponent(opts.ret)}` : '';
  const other = (
    <p>
      {text} <a href={`${path}${back}`}>{label}</a>.
    </p>
  );
  return walletPage(
    ctx,
    form.title,
    <SignInCard action={form.action} submit={form.submit} after={other}>
      <CsrfField token={opts.csrf} />
      {opts.ret ? <input type="hidden" name="return" value={opts.ret} /> : null}
      {fields}
    </SignInCard>,
  );
}

const SIGN_UP: WalletForm = {
  title: 'Open a wallet',
  action: '/wallet/signup',
  submit: 'Open my wallet',
  other: { text: 'Have a wallet already?', path: '/wallet/login', label: 'Sign in' },
};

const SIGN_IN: WalletForm = {
  title: 'Sign in to your wallet',
  action: '/wallet/login',
  submit: 'Sign in',
  other: { text: 'No wallet yet?', path: '/wallet/signup', label: 'Open one' },
};

export function signUpPage(ctx: WalletContext, opts: SignInFormOptions): string {
  return walletFormPage(
    ctx,
    opts,
    SIGN_UP,
    <>
      <FormError error={opts.error} />
      <EmailField email={opts.email} error={opts.error} />
      <PasswordField fresh />
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
    </>,
  );
}

export function signInPage(ctx: WalletContext, opts: SignInFormOptions): string {
  const fields = <SignInFields email={opts.email} error={opts.error} codeHint="Only if you turned on two-step sign-in." />;
  return walletFormPage(ctx, opts, SIGN_IN, fields);
}
