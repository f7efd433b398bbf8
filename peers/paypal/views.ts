// The PayPal peer's resources as PayPal's API shows them (orders, captures, refunds), its error shape and
// the buyer's approval page.
import { randomBytes } from 'node:crypto';
import type { Answer } from '../shared/http-peer.js';

export interface Capture {
  id: string;
  orderId: string;
  status: 'COMPLETED' | 'PENDING' | 'DECLINED' | 'REFUNDED';
  currency: string;
  value: string;
  customId: string | null;
}

export interface Order {
  id: string;
  status: 'PAYER_ACTION_REQUIRED' | 'APPROVED' | 'COMPLETED' | 'VOIDED';
  referenceId: string;
  customId: string | null;
  currency: string;
  value: string;
  returnUrl: string;
  cancelUrl: string;
  /** The experience context as sent. */
  experience: Record<string, unknown>;
  /** The buyer approved with an instrument the next capture declines. */
  declining: boolean;
  capture: Capture | null;
}

export interface Refund {
  id: string;
  captureId: string;
  status: 'PENDING' | 'COMPLETED' | 'FAILED';
  currency: string;
  value: string;
}

/** PayPal's error: `{name, message, debug_id, details: [{issue, description, field}], links}`. */
export function errorAnswer(status: number, name: string, issue: string, field: string): Answer {
  const message =
    name === 'UNPROCESSABLE_ENTITY'
      ? 'The requested action could not be performed, semantically incorrect, or failed business validation.'
      : name === 'RESOURCE_NOT_FOUND'
        ? 'The specified resource does not exist.'
        : name === 'INVALID_REQUEST'
          ? 'Request is not well-formed, syntactically incorrect, or violates schema.'
          : 'An internal server error has occurred.';
  return {
    status,
    body: {
      name,
      message,
      debug_id: randomBytes(7).toString('hex'),
      details: [{ issue, description: issue.toLowerCase().replace(/_/g, ' '), ...(field ? { field, location: 'body' } : {}) }],
      links: [{ href: `https://developer.paypal.com/docs/api/orders/v2/#error-${issue}`, rel: 'information_link', method: 'GET' }],
    },
  };
}

export function captureView(c: Capture, base: string) {
  return {
    id: c.id,
    status: c.status,
    amount: { currency_code: c.currency, value: c.value },
    final_capture: true,
    ...(c.customId ? { custom_id: c.customId } : {}),
    supplementary_data: { related_ids: { order_id: c.orderId } },
    links: [
      { href: `${base}/v2/payments/captures/${c.id}`, rel: 'self', method: 'GET' },
      { href: `${base}/v2/payments/captures/${c.id}/refund`, rel: 'refund', method: 'POST' },
      { href: `${base}/v2/checkout/orders/${c.orderId}`, rel: 'up', method: 'GET' },
    ],
  };
}

export function orderView(o: Order, base: string) {
  const links = [{ href: `${base}/v2/checkout/orders/${o.id}`, rel: 'self', method: 'GET' }];
  if (o.status === 'PAYER_ACTION_REQUIRED') links.push({ href: `${base}/checkoutnow?token=${o.id}`, rel: 'payer-action', method: 'GET' });
  if (o.status === 'APPROVED') links.push({ href: `${base}/v2/checkout/orders/${o.id}/capture`, rel: 'capture', method: 'POST' });
  return {
    id: o.id,
    intent: 'CAPTURE',
    status: o.status,
    payment_source: { paypal: {} },
    purchase_units: [
      {
        reference_id: o.referenceId,
        ...(o.customId ? { custom_id: o.customId } : {}),
        amount: { currency_code: o.currency, value: o.value },
        ...(o.capture ? { payments: { captures: [captureView(o.capture, base)] } } : {}),
      },
    ],
    links,
  };
}

export function refundView(r: Refund, base: string) {
  return {
    id: r.id,
    status: r.status,
    amount: { currency_code: r.currency, value: r.value },
    links: [
      { href: `${base}/v2/payments/refunds/${r.id}`, rel: 'self', method: 'GET' },
      { href: `${base}/v2/payments/captures/${r.captureId}`, rel: 'up', method: 'GET' },
    ],
  };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The buyer's page: approve, approve with a card the capture will decline, or cancel and go back. */
export function buyerPage(o: Order): Answer {
  return {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>PayPal peer: approve</title></head><body>
<h1>PayPal peer</h1><p>Pay ${esc(o.currency)} ${esc(o.value)} (order ${esc(o.id)}).</p>
<form method="post" action="/checkoutnow?token=${esc(o.id)}">
<button name="choice" value="approve">Approve and pay</button>
<button name="choice" value="declining">Pay with a card that will be declined</button>
<button name="choice" value="cancel">Cancel and return to the merchant</button>
</form></body></html>`,
  };
}
