// The console's home (balances, the latest payments and, in the sandbox, its clock) and the page shown on
// the live side until the business is verified.
import type { BalanceEntry } from '../../balances/index.js';
import type { PaymentIntent } from '../../payment-intents/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { esc, page, type PageContext } from './layout.js';

export function homePage(
  ctx: PageContext,
  data: { balances: BalanceEntry[]; payments: PaymentIntent[]; clock?: string; prices?: string; liveMethods?: string[] },
): string {
  const methods =
    data.liveMethods === undefined
      ? ''
      : `<section aria-labelledby="h-live-methods"><h2 id="h-live-methods">Live payment methods</h2><p id="live-methods">${
          data.liveMethods.length === 0 ? 'None is configured yet: the operator turns them on.' : `On: ${esc(data.liveMethods.join(', '))}.`
        }</p></section>`;
  const balances =
    data.balances.length === 0
      ? '<p>No money yet in this environment.</p>'
      : `<div class="balances">${data.balances
          .map(
            (b) =>
              `<div class="card"><h3>${esc(b.asset)}</h3><dl class="kv"><dt>Available</dt><dd>${esc(b.available)}</dd><dt>Total</dt><dd>${esc(b.total)}</dd></dl></div>`,
          )
          .join('')}</div>`;
  const payments =
    data.payments.length === 0
      ? '<p>No payments yet in this environment.</p>'
      : `<div class="table-wrap" tabindex="0" role="region" aria-label="Recent payments"><table><caption class="hint">The 10 most recent</caption><thead><tr><th scope="col">Payment</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Reference</th><th scope="col">Created</th></tr></thead><tbody>${data.payments
          .map(
            (p) =>
              `<tr><td><a href="/console/payments/${esc(p.id)}?env=${ctx.env ?? 'test'}"><code>${esc(p.id)}</code></a></td><td>${esc(p.currency)} ${esc(p.amount)}</td><td><span class="status">${esc(p.status)}</span></td><td>${esc(p.merchant_reference ?? '')}</td><td>${esc(p.created_at)}</td></tr>`,
          )
          .join('')}</tbody></table></div>`;
  return page(
    ctx,
    'Home',
    `<section aria-labelledby="h-balances"><h2 id="h-balances">Balances</h2>${balances}</section>
<section aria-labelledby="h-payments"><h2 id="h-payments">Recent payments</h2>${payments}</section>${methods}${data.prices ?? ''}${data.clock ?? ''}`,
  );
}

export function liveClosedPage(ctx: PageContext, status: string, reason: string | null): string {
  return page(
    ctx,
    'Live payments',
    `<div class="card"><p>Live payments open once your business is verified. Verification status: <strong>${esc(status.replace('_', ' '))}</strong>.</p>
${reason ? `<p>Why it was refused: ${esc(reason)}</p>` : ''}<p><a href="/console/verification">Business verification</a></p></div>`,
  );
}

/** The sandbox clock on the home page: its time, and a form moving it forward. */
export function clockForm(s: ConsoleSession, now: string): string {
  return `<section class="card" aria-labelledby="h-clock"><h2 id="h-clock">Sandbox clock</h2><p>Sandbox time: <strong id="sandbox-now">${esc(now)}</strong></p>
<form method="post" action="/console/sandbox/clock?env=test"><input type="hidden" name="_csrf" value="${esc(s.csrf)}">
<label for="seconds">Move forward by (seconds)</label><input id="seconds" name="seconds" type="text" inputmode="numeric" required aria-describedby="seconds-hint">
<p class="hint" id="seconds-hint">3600 is an hour, 86400 a day. Expiry and settlements follow at once.</p>
<button type="submit">Advance the clock</button></form></section>`;
}
