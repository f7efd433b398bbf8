// The fields of the signed-in areas' sign-in forms (the console's and the wallet's), labelled `Email`,
// `Password` and `Authentication code`; the form's error is announced and describes the email field.
import { MIN_PASSWORD_LENGTH } from '../sign-in.js';
import type { Html } from './frame.js';

/** The form's error, announced (role alert). */
export function FormError({ error }: { error?: string | undefined }) {
  return error ? (
    <p class="error" role="alert" id="form-error">
      {error}
    </p>
  ) : null;
}

/** The email field, filled again after a refusal and described by the form's error. */
export function EmailField({ email, error }: { email?: string | undefined; error?: string | undefined }) {
  return (
    <>
      <label for="email">Email</label>
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="username"
        required
        value={email ?? ''}
        aria-describedby={error ? 'form-error' : undefined}
      />
    </>
  );
}

/** The password: the current one to sign in, or a new one of MIN_PASSWORD_LENGTH to 200 characters (its hint says so). */
export function PasswordField({ fresh = false }: { fresh?: boolean }) {
  const rule = fresh ? { minLength: MIN_PASSWORD_LENGTH, 'aria-describedby': 'password-hint' } : {};
  return (
    <>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete={fresh ? 'new-password' : 'current-password'} required {...rule} />
      {fresh ? (
        <p class="hint" id="password-hint">
          {`${MIN_PASSWORD_LENGTH} to 200 characters.`}
        </p>
      ) : null}
    </>
  );
}

/** A sign-in area's one form on a narrow card (submitted by `submit`), and what follows it (a link to the other form). */
export function SignInCard({ action, submit, children, after }: { action: string; submit: string; children: Html; after?: Html }) {
  return (
    <div class="card narrow">
      <form method="post" action={action} noValidate>
        {children}
        <button type="submit">{submit}</button>
      </form>
      {after}
    </div>
  );
}

/** Email, password and, for those who turned two-step sign-in on, the code (`codeHint` says which codes). */
export function SignInFields({ email, error, codeHint }: { email?: string | undefined; error?: string | undefined; codeHint: string }) {
  return (
    <>
      <FormError error={error} />
      <EmailField email={email} error={error} />
      <PasswordField />
      <label for="code">Authentication code</label>
      <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="code-hint" />
      <p class="hint" id="code-hint">
        {codeHint}
      </p>
    </>
  );
}
