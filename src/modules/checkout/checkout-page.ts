// Server-rendered pages of the hosted checkout: no inline script or style (the Content-Security-Policy
// forbids both), one small script and one stylesheet from our own origin, readable without the script.
import type { PaymentLinkRow } from '../../db/schema.js';
import { WALLET_ASSETS, WALLET_NETWORKS, WALLET_NETWORK_NAMES } from '../rails/index.js';
import { METHOD_LABELS, returnUrlOf, statusDetail, statusHeadline, FINAL_STATUSES, type CheckoutIntent } from './checkout.service.js';
import { isPayable } from '../payment-intents/index.js';

export interface Assets {
  script: string;
  style: string;
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** "1500.00" -> "1,500.00" (grouping only; the decimals stay exactly as the API gives them). */
export function grouped(amount: string): string {
  const [int, frac] = amount.split('.');
  const g = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? g : `${g}.${frac}`;
}

export function layout(opts: { title: string; assets: Assets; sandbox: boolean; body: string; meta?: string; page?: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">${opts.meta ?? ''}
<title>${esc(opts.title)}</title><link rel="stylesheet" href="${opts.assets.style}">
<script src="${opts.assets.script}" defer></script></head>
<body${opts.page ? ` data-page="${opts.page}"` : ''}>${opts.sandbox ? '<p class="sandbox-banner">Sandbox: test mode, no real money moves</p>' : ''}
${opts.body}
</body></html>`;
}

export function messagePage(assets: Assets, sandbox: boolean, title: string, text: string): string {
  return layout({ title, assets, sandbox, body: `<main class="card" id="main"><h1>${esc(title)}</h1><p>${esc(text)}</p></main>` });
}

/**
 * The amount the customer pays: the fiat amount. The asset amount is shown only where the customer sends
 * the asset (the wallet panel, with the tag that marks the payment), so that each method shows one amount.
 */
function amountBlock(c: CheckoutIntent): string {
  const r = c.row;
  return `<p class="amount"><span class="fiat">${esc(r.currency)} ${esc(grouped(r.amount))}</span></p>`;
}

/** The panel of each payment method the intent offers, in its order. */
function methodPanels(c: CheckoutIntent, sandbox: boolean, wallet: CheckoutWallet | null): string {
  const panels: string[] = [];
  for (const m of c.methods) {
    switch (m) {
      case 'service_balance':
        panels.push(balancePanel(c, sandbox, wallet));
        break;
      case 'mpesa':
        panels.push(mpesaPanel(sandbox));
        break;
      case 'card':
        panels.push(cardPanel(c, sandbox));
        break;
      case 'paypal':
        panels.push(paypalPanel(sandbox));
        break;
      case 'external_wallet':
        panels.push(walletPanel(c, sandbox));
        break;
    }
  }
  return panels.join('\n');
}

/** The payer signed in to the wallet on the checkout's origin (live), with their balances. */
export interface CheckoutWallet {
  email: string;
  balances: { USDT: string; USDC: string };
}

/** Paying from the account balance held with the merchant's payment service. */
function balancePanel(c: CheckoutIntent, sandbox: boolean, wallet: CheckoutWallet | null): string {
  const r = c.row;
  if (!sandbox) return liveBalancePanel(c, wallet);
  return `<form class="method-form" data-method="service_balance" id="panel-service_balance" aria-labelledby="h-service_balance">
<h3 id="h-service_balance">Pay from your account balance</h3>
<p>Sandbox: pays at once from a test payer\u2019s account balance.</p>
<p class="form-error" id="err-service_balance" role="alert"></p>
<button type="submit">Pay ${esc(r.currency)} ${esc(grouped(r.amount))}</button></form>`;
}

/** Live: sign in to the wallet first; signed in, the balance, the amount it pays and the PIN. */
function liveBalancePanel(c: CheckoutIntent, wallet: CheckoutWallet | null): string {
  const r = c.row;
  const asset = r.settlement_currency as keyof CheckoutWallet['balances'];
  const signIn = `/wallet/login?return=${encodeURIComponent(`/checkout/${r.id}`)}`;
  if (!wallet) {
    return `<div class="method-form" id="panel-service_balance" aria-labelledby="h-service_balance">
<h3 id="h-service_balance">Pay from your account balance</h3>
<p>Pay at once from the ${esc(r.settlement_currency)} you hold in your wallet with this payment service.</p>
<p><a href="${esc(signIn)}">Sign in to your wallet</a> or <a href="/wallet/signup">open a wallet</a>, then come back here.</p></div>`;
  }
  return `<form class="method-form" data-method="service_balance" id="panel-service_balance" aria-labelledby="h-service_balance" novalidate>
<h3 id="h-service_balance">Pay from your account balance</h3>
<p>Signed in as <strong>${esc(wallet.email)}</strong>.</p>
<dl class="balance-facts"><dt>Your balance</dt><dd id="wallet-balance">${esc(grouped(wallet.balances[asset] ?? '0'))} ${esc(r.settlement_currency)}</dd>
<dt>This payment takes</dt><dd id="wallet-pay-amount">${esc(grouped(r.pay_amount))} ${esc(r.settlement_currency)}</dd></dl>
<label for="balance_pin">Transaction PIN</label>
<input id="balance_pin" name="pin" type="password" inputmode="numeric" autocomplete="off" required maxlength="6" pattern="[0-9]{6}" aria-describedby="balance_pin-hint">
<p class="hint" id="balance_pin-hint">The 6-digit PIN you chose when you opened your wallet.</p>
<p class="form-error" id="err-service_balance" role="alert"></p>
<button type="submit">Pay ${esc(grouped(r.pay_amount))} ${esc(r.settlement_currency)}</button></form>`;
}

/** An M-Pesa payment request (STK push) to the phone number entered. */
function mpesaPanel(sandbox: boolean): string {
  return `<form class="method-form" data-method="mpesa" id="panel-mpesa" aria-labelledby="h-mpesa" novalidate>
<h3 id="h-mpesa">Pay with M-Pesa</h3>
<label for="phone">M-Pesa phone number</label>
<input id="phone" name="phone" type="tel" inputmode="tel" autocomplete="tel" required placeholder="+254712345678" aria-describedby="phone-hint phone-error">
<p class="hint" id="phone-hint">We will send a payment request to this phone.${sandbox ? ' Sandbox: +254700000001 pays, \u20260002 cancels, \u20260003 has no funds, \u20260004 times out, \u20260005 goes to review.' : ''}</p>
<p class="field-error" id="phone-error"></p>
<p class="form-error" id="err-mpesa" role="alert"></p>
<button type="submit">Send payment request</button></form>`;
}

/** A live card payment: the email for Paystack's receipt, then Paystack's own page takes the card. */
function paystackCardPanel(c: CheckoutIntent): string {
  const r = c.row;
  const customer = r.customer ? (JSON.parse(r.customer) as { email?: unknown }) : {};
  const email = typeof customer.email === 'string' ? customer.email : '';
  return `<form class="method-form" data-method="card" id="panel-card" aria-labelledby="h-card" novalidate>
<h3 id="h-card">Pay by card</h3>
<label for="card_email">Email for your receipt</label>
<input id="card_email" name="email" type="email" autocomplete="email" required maxlength="254" value="${esc(email)}" aria-describedby="card_email-hint card_email-error">
<p class="hint" id="card_email-hint">You will enter your card on Paystack’s secure page, then come back here.</p>
<p class="field-error" id="card_email-error"></p>
<p class="form-error" id="err-card" role="alert"></p>
<button type="submit">Continue to pay ${esc(r.currency)} ${esc(grouped(r.amount))} by card</button></form>`;
}

/** A card payment: number, expiry and security code (the sandbox); live, Paystack's page takes the card. */
function cardPanel(c: CheckoutIntent, sandbox: boolean): string {
  if (!sandbox) return paystackCardPanel(c);
  const r = c.row;
  return `<form class="method-form" data-method="card" id="panel-card" aria-labelledby="h-card" novalidate>
<h3 id="h-card">Pay by card</h3>
<label for="card_number">Card number</label>
<input id="card_number" name="card_number" type="text" inputmode="numeric" autocomplete="cc-number" required maxlength="23" placeholder="1234 1234 1234 1234" aria-describedby="card_number-error${sandbox ? ' card-hint' : ''}" data-group="card">
<p class="field-error" id="card_number-error"></p>
<div class="row"><div><label for="card_expiry">Expiry (MM/YY)</label>
<input id="card_expiry" name="card_expiry" type="text" inputmode="numeric" autocomplete="cc-exp" required maxlength="7" placeholder="MM/YY" aria-describedby="card_expiry-error">
<p class="field-error" id="card_expiry-error"></p></div>
<div><label for="card_cvc">Security code (CVC)</label>
<input id="card_cvc" name="card_cvc" type="text" inputmode="numeric" autocomplete="cc-csc" required maxlength="4" placeholder="123" aria-describedby="card_cvc-error">
<p class="field-error" id="card_cvc-error"></p></div></div>
${sandbox ? '<p class="hint" id="card-hint">Sandbox cards: 4242 4242 4242 4242 pays; 4000 0000 0000 0002 is declined; 4000 0000 0000 9995 has no funds; 4000 0000 0000 0259 pays, then is disputed.</p>' : ''}
<p class="form-error" id="err-card" role="alert"></p>
<button type="submit">Pay ${esc(r.currency)} ${esc(grouped(r.amount))}</button></form>`;
}

/** Approving the payment on PayPal, then coming back. */
function paypalPanel(sandbox: boolean): string {
  return `<form class="method-form" data-method="paypal" id="panel-paypal" aria-labelledby="h-paypal">
<h3 id="h-paypal">Pay with PayPal</h3>
<p>You will approve the payment on PayPal${sandbox ? ' (a simulated PayPal page in the sandbox)' : ''}, then come back here.</p>
<p class="form-error" id="err-paypal" role="alert"></p>
<button type="submit">Continue to PayPal</button></form>`;
}

/** A crypto wallet: the network chosen, the exact amount and address to send to, and in the sandbox a simulated deposit. */
function walletPanel(c: CheckoutIntent, sandbox: boolean): string {
  const r = c.row;
  return `<div class="method-form" id="panel-external_wallet">
<form data-method="external_wallet" aria-labelledby="h-external_wallet">
<h3 id="h-external_wallet">Pay from a crypto wallet</h3>
<label for="network">Network</label>
<select id="network" name="network">${c.walletNetworks.map((n) => `<option value="${n}">${WALLET_NETWORK_NAMES[n]}</option>`).join('')}</select>
<p class="form-error" id="err-external_wallet" role="alert"></p>
<button type="submit">Show deposit address</button></form>
<div id="wallet-instructions" hidden>
<p>Send <strong>exactly</strong> this amount of <strong class="w-asset"></strong> on <strong class="w-network"></strong>: any other amount, asset or network is not credited automatically.</p>
<p class="label" id="w-amount-label">Amount</p>
<p class="copyable"><code id="w-amount" aria-labelledby="w-amount-label"></code> <button type="button" class="secondary copy" data-copy="w-amount">Copy amount</button></p>
<p class="hint" id="w-tag"></p>
<p class="label" id="w-address-label">Deposit address</p>
<p class="copyable"><code id="w-address" aria-labelledby="w-address-label"></code> <button type="button" class="secondary copy" data-copy="w-address">Copy address</button></p>
<p class="copied" role="status" id="copy-status"></p>
<img id="w-qr" alt="QR code of this payment: the address, the token and the exact amount, for a wallet app to scan" width="180" height="180">
</div>
${
  sandbox
    ? `<form id="deposit-form" class="sandbox-panel" data-action="deposit" aria-labelledby="h-deposit" hidden novalidate>
<h3 id="h-deposit">Sandbox: send a simulated deposit</h3>
<p class="hint">Only the exact amount, asset and network is credited; anything else is kept as an unmatched deposit for the merchant.</p>
<div class="row"><div><label for="dep-network">Deposit network</label><select id="dep-network" name="network">${WALLET_NETWORKS.map((n) => `<option value="${n}">${WALLET_NETWORK_NAMES[n]}</option>`).join('')}</select></div>
<div><label for="dep-asset">Deposit asset</label><select id="dep-asset" name="asset">${WALLET_ASSETS.map((a) => `<option${a === r.settlement_currency ? ' selected' : ''}>${a}</option>`).join('')}</select></div></div>
<label for="dep-amount">Deposit amount</label>
<input id="dep-amount" name="amount" type="text" inputmode="decimal" required aria-describedby="amount-error">
<p class="field-error" id="amount-error"></p>
<p class="form-error" id="err-deposit" role="alert"></p>
<button type="submit">Send simulated deposit</button>
<p class="deposit-result" id="deposit-result" role="status"></p></form>`
    : ''
}</div>`;
}

export function checkoutPage(
  c: CheckoutIntent,
  opts: { assets: Assets; token: string; statusUrl: string; payUrl: string; depositUrl: string; wallet?: CheckoutWallet | null },
): string {
  const r = c.row;
  const sandbox = r.environment === 'test';
  const final = FINAL_STATUSES.has(r.status) || c.linkFull;
  const payable = isPayable(r, c.now) && !c.linkFull;
  const secondsLeft = Math.max(0, Math.floor((r.expires_at - c.now) / 1000));
  const returnUrl = returnUrlOf(r);
  const methods = payable && c.methods.length > 0;
  const body = `<main class="card" id="main" data-intent="${esc(r.id)}" data-status-url="${esc(opts.statusUrl)}" data-pay-url="${esc(opts.payUrl)}" data-deposit-url="${esc(opts.depositUrl)}" data-status="${esc(r.status)}"${returnUrl ? ` data-return-url="${esc(returnUrl)}"` : ''}>
<p class="merchant">${esc(c.merchantName)}</p>
<h1>${r.description ? esc(r.description) : `Pay ${esc(c.merchantName)}`}</h1>
${amountBlock(c)}
<p class="countdown"${payable ? '' : ' hidden'}>Time left to pay: <span id="countdown" role="timer" data-seconds-left="${secondsLeft}">${Math.floor(secondsLeft / 60)}:${String(secondsLeft % 60).padStart(2, '0')}</span></p>
<div id="status" class="status status-${esc(r.status)}" role="status" aria-live="polite">
<p class="headline" id="status-headline" tabindex="-1">${esc(statusHeadline(c))}</p>
<p class="detail" id="status-detail">${esc(statusDetail(c))}</p>
<p id="return-link"${final && returnUrl ? '' : ' hidden'}><a href="${esc(returnUrl ?? '#')}">Return to ${esc(c.merchantName)}</a></p>
</div>
${
  methods
    ? `<section id="methods" aria-labelledby="methods-title">
<h2 id="methods-title">How would you like to pay?</h2>
<fieldset class="method-choice"><legend class="visually-hidden">Payment method</legend>
${c.methods.map((m) => `<label class="choice"><input type="radio" name="method" value="${m}"> ${METHOD_LABELS[m]}</label>`).join('\n')}
</fieldset>
<noscript><p class="form-error">This page needs JavaScript to take a payment.</p></noscript>
${methodPanels(c, sandbox, opts.wallet ?? null)}
</section>`
    : payable
      ? '<p id="no-methods">No payment method is available for this payment yet. Please contact the merchant.</p>'
      : ''
}
<p class="footer">Payment reference <code>${esc(r.id)}</code></p>
</main>`;
  return layout({
    title: `Pay ${c.merchantName}`,
    assets: opts.assets,
    sandbox,
    body,
    meta: `<meta name="checkout-token" content="${esc(opts.token)}">`,
    page: 'checkout',
  });
}

export function paypalPage(c: CheckoutIntent, opts: { assets: Assets; token: string; approveUrl: string; backUrl: string }): string {
  const r = c.row;
  const body = `<main class="card paypal" id="main" data-approve-url="${esc(opts.approveUrl)}" data-back-url="${esc(opts.backUrl)}">
<p class="merchant">PayPal${r.environment === 'test' ? ' (sandbox simulation)' : ''}</p>
<h1>Approve your payment to ${esc(c.merchantName)}</h1>
${amountBlock(c)}
<p>Approving pays ${esc(c.merchantName)} from your PayPal account and takes you back to the checkout.</p>
<p class="form-error" id="err-paypal" role="alert"></p>
<div class="actions"><button type="button" id="paypal-approve">Approve payment</button>
<button type="button" class="secondary" id="paypal-cancel">Cancel and go back</button></div>
</main>`;
  return layout({
    title: 'Approve payment',
    assets: opts.assets,
    sandbox: r.environment === 'test',
    body,
    meta: `<meta name="checkout-token" content="${esc(opts.token)}">`,
    page: 'paypal',
  });
}

/**
 * A payment link's page: what is being paid for, the amount (or a field for it), and one button that mints
 * the visit's intent (a POST with the visit's token). Opening it mints nothing.
 */
export function linkPage(
  link: PaymentLinkRow,
  merchantName: string,
  opts: { assets: Assets; error: string | null; value: string; action: string; token: string },
): string {
  const decimals = link.currency === 'UGX' || link.currency === 'RWF' ? 0 : 2;
  const amountField =
    link.amount === null
      ? `<label for="amount">Amount to pay (${esc(link.currency)})</label>
<input id="amount" name="amount" type="text" inputmode="decimal" required autocomplete="off" value="${esc(opts.value)}" placeholder="${decimals ? '100.00' : '1000'}"
 aria-describedby="amount-hint${opts.error ? ' amount-error' : ''}"${opts.error ? ' aria-invalid="true" autofocus' : ''}>
<p class="hint" id="amount-hint">Enter the amount in ${esc(link.currency)}${decimals ? ', with at most 2 decimals' : ', without decimals'}.</p>
${opts.error ? `<p class="field-error" id="amount-error" role="alert">${esc(opts.error)}</p>` : ''}`
      : `<p class="amount"><span class="fiat">${esc(link.currency)} ${esc(grouped(link.amount))}</span></p>
${opts.error ? `<p class="form-error" role="alert">${esc(opts.error)}</p>` : ''}`;
  const body = `<main class="card" id="main">
<p class="merchant">${esc(merchantName)}</p>
<h1>${esc(link.title)}</h1>
<form method="post" action="${esc(opts.action)}" novalidate>
<input type="hidden" name="visit" value="${esc(opts.token)}">
${amountField}
<button type="submit">Continue to payment</button>
</form></main>`;
  return layout({ title: `Pay ${merchantName}`, assets: opts.assets, sandbox: link.environment === 'test', body });
}
