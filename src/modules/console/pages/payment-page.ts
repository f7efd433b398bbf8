// One payment: its fields, the PIN refund of a balance payment (owners), the sandbox driver, the timeline of
// its events with their webhook deliveries and attempts, its pay attempts and its rails' attempts.
import type { PaymentIntent } from '../../payment-intents/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { esc, page, type PageContext } from './layout.js';

export interface TimelineEvent {
  id: string;
  type: string;
  created_at: string;
  deliveries: Array<{
    id: string;
    url: string;
    status: string;
    attempts?: Array<{
      attempt: number;
      outcome: string;
      status_code: number | null;
      error: string | null;
      started_at: string;
      duration_ms: number | null;
    }>;
  }>;
}

export const DRIVER_OUTCOMES = [
  'success',
  'attempt_failed',
  'failed',
  'underpaid',
  'overpaid',
  'review',
  'expired',
  'cancelled',
  'duplicate',
  'dispute',
  'dispute_won',
  'dispute_lost',
];
export const DRIVER_METHODS = ['service_balance', 'mpesa', 'card', 'paypal', 'external_wallet'];

export interface PaymentPageData {
  payment: PaymentIntent;
  events: TimelineEvent[];
  attempts: Array<{
    id: string;
    payment_method: string;
    outcome: string;
    amount: string;
    asset: string;
    failure_code: string | null;
    created_at: number;
  }>;
  /** The rails' own attempts (an STK push, a PayPal approval, a card charge) with their state. */
  railAttempts: Array<{
    id: string;
    method: string;
    state: string;
    failure_code: string | null;
    provider_reference: string | null;
    created_at: number;
  }>;
  canDrive: boolean;
  /** The owner may refund this balance payment with the PIN. */
  canPinRefund?: boolean;
  notice?: string;
  error?: string;
}

function deliveryItem(d: TimelineEvent['deliveries'][number]): string {
  return `<li>Webhook to <code>${esc(d.url)}</code>: <span class="status">${esc(d.status)}</span>${
    d.attempts && d.attempts.length > 0
      ? `<ul>${d.attempts
          .map(
            (a) =>
              `<li>Attempt ${a.attempt}: ${esc(a.outcome)}${a.status_code === null ? '' : ` (HTTP ${a.status_code})`}${a.error ? ` — ${esc(a.error)}` : ''} <span class="hint">${esc(a.started_at)}${a.duration_ms === null ? '' : `, ${a.duration_ms} ms`}</span></li>`,
          )
          .join('')}</ul>`
      : ''
  }</li>`;
}

function timeline(events: TimelineEvent[]): string {
  return events.length === 0
    ? '<p>No events.</p>'
    : `<ol class="timeline">${events
        .map(
          (e) =>
            `<li><p><strong>${esc(e.type)}</strong> <span class="hint">${esc(e.created_at)} · <code>${esc(e.id)}</code></span></p>${
              e.deliveries.length === 0
                ? '<p class="hint">No webhook endpoint subscribed.</p>'
                : `<ul>${e.deliveries.map(deliveryItem).join('')}</ul>`
            }</li>`,
        )
        .join('')}</ol>`;
}

function payAttempts(attempts: PaymentPageData['attempts']): string {
  return attempts.length === 0
    ? '<p>No pay attempts yet.</p>'
    : `<div class="table-wrap" tabindex="0" role="region" aria-label="Pay attempts"><table><thead><tr><th scope="col">When</th><th scope="col">Method</th><th scope="col">Outcome</th><th scope="col">Amount</th><th scope="col">Failure</th></tr></thead><tbody>${attempts
        .map(
          (a) =>
            `<tr><td>${esc(new Date(Number(a.created_at)).toISOString())}</td><td>${esc(a.payment_method)}</td><td>${esc(a.outcome)}</td><td>${esc(a.amount)} ${esc(a.asset)}</td><td>${esc(a.failure_code ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table></div>`;
}

function railAttempts(rails: PaymentPageData['railAttempts']): string {
  return rails.length === 0
    ? '<p>No rail attempts.</p>'
    : `<div class="table-wrap" tabindex="0" role="region" aria-label="Rail attempts"><table><thead><tr><th scope="col">When</th><th scope="col">Method</th><th scope="col">State</th><th scope="col">Failure</th><th scope="col">Provider reference</th></tr></thead><tbody>${rails
        .map(
          (r) =>
            `<tr><td>${esc(new Date(r.created_at).toISOString())}</td><td>${esc(r.method)}</td><td>${esc(r.state)}</td><td>${esc(r.failure_code ?? '')}</td><td>${esc(r.provider_reference ?? '')}</td></tr>`,
        )
        .join('')}</tbody></table></div>`;
}

function driverForm(p: PaymentIntent, s: ConsoleSession): string {
  return `<section class="card" aria-labelledby="h-driver"><h2 id="h-driver">Sandbox: drive this payment</h2>
<form method="post" action="/console/payments/${esc(p.id)}/simulate?env=test"><input type="hidden" name="_csrf" value="${esc(s.csrf)}">
<label for="outcome">Outcome</label><select id="outcome" name="outcome">${DRIVER_OUTCOMES.map((o) => `<option value="${o}">${o.replace('_', ' ')}</option>`).join('')}</select>
<label for="payment_method">Payment method</label><select id="payment_method" name="payment_method">${p.payment_methods
    .map((m) => `<option value="${esc(m)}">${esc(m.replace('_', ' '))}</option>`)
    .join('')}</select>
<button type="submit">Apply outcome</button></form></section>`;
}

function pinRefundForm(ctx: PageContext, p: PaymentIntent, s: ConsoleSession): string {
  return `<section class="card" aria-labelledby="h-refund"><h2 id="h-refund">Refund this balance payment</h2>
<form method="post" action="/console/payments/${esc(p.id)}/refund?env=${ctx.env ?? 'test'}"><input type="hidden" name="_csrf" value="${esc(s.csrf)}">
<label for="refund-pin">Transaction PIN</label><input id="refund-pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required>
<button type="submit">Refund ${esc(p.currency)} ${esc(p.amount)}</button></form></section>`;
}

export function paymentPage(ctx: PageContext, data: PaymentPageData): string {
  const p = data.payment;
  const s = ctx.session!;
  const fields: Array<[string, string | null]> = [
    ['Status', p.status],
    ['Amount', `${p.currency} ${p.amount}`],
    ['Pays', `${p.pay_amount} ${p.settlement_currency}`],
    ['Received', `${p.amount_received} ${p.settlement_currency}`],
    ['Method', p.payment_method],
    ['Merchant reference', p.merchant_reference],
    ['Provider reference', p.provider_reference],
    ['Created', p.created_at],
    ['Expires', p.expires_at],
  ];
  return page(
    ctx,
    `Payment ${p.id}`,
    `${data.notice ? `<p class="notice" role="status">${esc(data.notice)}</p>` : ''}${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}
<div class="card"><dl class="kv">${fields.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v ?? '—')}</dd>`).join('')}</dl></div>
${data.canPinRefund ? pinRefundForm(ctx, p, s) : ''}
${data.canDrive ? driverForm(p, s) : ''}
<section aria-labelledby="h-timeline"><h2 id="h-timeline">Timeline</h2>${timeline(data.events)}</section>
<section aria-labelledby="h-attempts"><h2 id="h-attempts">Pay attempts</h2>${payAttempts(data.attempts)}</section>
<section aria-labelledby="h-rail"><h2 id="h-rail">Rail attempts</h2>${railAttempts(data.railAttempts)}</section>`,
  );
}
