// Business verification (KYB): its status, and the owner's form submitting the business's details.
import { CsrfField, page, type PageContext } from './layout.js';

const KYB_FIELDS: Array<[string, string, string]> = [
  ['legal_name', 'Legal name', 'organization'],
  ['registration_number', 'Registration number', 'off'],
  ['country', 'Country (two-letter code)', 'country'],
  ['address', 'Address', 'street-address'],
  ['contact_name', 'Contact name', 'name'],
  ['contact_email', 'Contact email', 'email'],
];

type Verification = { status: string; reason: string | null; details: Record<string, string> | null };
type VerificationOptions = { error?: { message: string; param: string | null }; notice?: string; values?: Record<string, string> };

function KybForm({ ctx, v, opts }: { ctx: PageContext; v: Verification; opts: VerificationOptions }) {
  const values = opts.values ?? v.details ?? {};
  return (
    <form method="post" action="/console/verification" noValidate>
      <CsrfField session={ctx.session!} />
      {opts.error ? (
        <p class="error" role="alert" id="kyb-error">
          {opts.error.message}
        </p>
      ) : null}
      {KYB_FIELDS.map(([name, label, auto]) => (
        <>
          <label for={name}>{label}</label>
          <input
            id={name}
            name={name}
            type={name === 'contact_email' ? 'email' : 'text'}
            autocomplete={auto}
            required
            value={values[name] ?? ''}
            aria-invalid={opts.error?.param === name ? 'true' : undefined}
            aria-describedby={opts.error?.param === name ? 'kyb-error' : undefined}
          />
        </>
      ))}
      <button type="submit">Submit for verification</button>
    </form>
  );
}

export function verificationPage(ctx: PageContext, v: Verification, opts: VerificationOptions): string {
  const s = ctx.session!;
  const canSubmit = s.user.role === 'owner' && v.status !== 'verified' && v.status !== 'in_review';
  return page(
    ctx,
    'Business verification',
    <>
      {opts.notice ? (
        <p class="notice" role="status">
          {opts.notice}
        </p>
      ) : null}
      <div class="card">
        <dl class="kv">
          <dt>Status</dt>
          <dd>
            <span class="status" id="kyb-status">
              {v.status.replace('_', ' ')}
            </span>
          </dd>
          {v.reason ? (
            <>
              <dt>Reason</dt>
              <dd id="kyb-reason">{v.reason}</dd>
            </>
          ) : null}
        </dl>
      </div>
      <div class="card">
        {canSubmit ? (
          <KybForm ctx={ctx} v={v} opts={opts} />
        ) : v.status === 'in_review' ? (
          <p>Your submission is being reviewed.</p>
        ) : v.status === 'verified' ? (
          <p>Your business is verified: live payments are open.</p>
        ) : (
          <p>The account owner submits the business verification.</p>
        )}
      </div>
    </>,
  );
}
