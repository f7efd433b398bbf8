// The sign-in form: email, password and, for users who turned it on, the TOTP code (the shared fields).
import { SignInCard, SignInFields } from '../../../shared/pages/sign-in-fields.js';
import { page, type PageContext } from './layout.js';

export function loginPage(ctx: PageContext, opts: { error?: string; email?: string }): string {
  return page(
    ctx,
    'Sign in',
    <SignInCard action="/console/login" submit="Sign in">
      <SignInFields
        email={opts.email}
        error={opts.error}
        codeHint="Only if you turned on two-step sign-in: the 6 digits your app shows, or one of your recovery codes."
      />
    </SignInCard>,
  );
}
