// Business verification (KYB): its status, and the owner's form submitting the business's details.
import { csrfField, esc, page, type PageContext } from './layout.js';

const KYB_FIELDS: Array<[string, string, string]> = [
  ['legal_name', 'Legal name', 'organization'],
  ['registration_number', 'Registration number', 'off'],
  ['country', 'Country (two-letter code)', 'country'],
  ['address', 'Address', 'street-address'],
  ['contact_name', 'Contact name', 'name'],
  ['contact_email', 'Contact email', 'email'],
];

export function verificationPage(
  ctx: PageContext,
  v: { status: string; reason: string | null; details: Record<string, string> | null },
  opts: { error?: { message: string; param: string | null }; notice?: string; values?: Record<string, string> },
): string {
  const s = ctx.session!;
  const canSubmit = s.user.role === 'owner' && v.status !== 'verified' && v.status !== 'in_review';
  const values = opts.values ?? v.details ?? {};
  const status = `<dl class="kv"><dt>Status</dt><dd><span class="status" id="kyb-status">${esc(v.status.replace('_', ' '))}</span></dd>${
    v.reason ? `<dt>Reason</dt><dd id="kyb-reason">${esc(v.reason)}</dd>` : ''
  }</dl>`;
  const form = canSubmit
    ? `<form method="post" action="/console/verification" novalidate>${csrfField(s)}
${opts.error ? `<p class="error" role="alert" id="kyb-error">${esc(opts.error.message)}</p>` : ''}
${KYB_FIELDS.map(
  ([name, label, auto]) =>
    `<label for="${name}">${esc(label)}</label><input id="${name}" name="${name}" type="${name === 'contact_email' ? 'email' : 'text'}" autocomplete="${auto}" required value="${esc(values[name] ?? '')}"${
      opts.error?.param === name ? ' aria-invalid="true" aria-describedby="kyb-error"' : ''
    }>`,
).join('\n')}
<button type="submit">Submit for verification</button></form>`
    : v.status === 'in_review'
      ? '<p>Your submission is being reviewed.</p>'
      : v.status === 'verified'
        ? '<p>Your business is verified: live payments are open.</p>'
        : '<p>The account owner submits the business verification.</p>';
  return page(
    ctx,
    'Business verification',
    `${opts.notice ? `<p class="notice" role="status">${esc(opts.notice)}</p>` : ''}<div class="card">${status}</div><div class="card">${form}</div>`,
  );
}
