// The sign-in form: email, password and, for users who turned it on, the TOTP code.
import { page, type PageContext } from './layout.js';

export function loginPage(ctx: PageContext, opts: { error?: string; email?: string }): string {
  return page(
    ctx,
    'Sign in',
    <div class="card narrow">
      <form method="post" action="/console/login" noValidate>
        {opts.error ? (
          <p class="error" role="alert" id="login-error">
            {opts.error}
          </p>
        ) : null}
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          value={opts.email ?? ''}
          aria-describedby={opts.error ? 'login-error' : undefined}
        />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <label for="code">Authentication code</label>
        <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint" />
        <p class="hint" id="code-hint">
          Only if you turned on two-step sign-in.
        </p>
        <button type="submit">Sign in</button>
      </form>
    </div>,
  );
}
