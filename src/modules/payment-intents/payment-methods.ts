// Which payment methods an intent may offer, by its currency and settlement asset.
import type { FiatCurrency, SettlementAsset } from '../../shared/money.js';

export const PAYMENT_METHODS = ['service_balance', 'mpesa', 'card', 'paypal', 'external_wallet'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export function methodAllowed(method: PaymentMethod, currency: FiatCurrency, asset: SettlementAsset): boolean {
  switch (method) {
    case 'mpesa':
      return currency === 'KES';
    case 'card':
      return currency === 'KES' || currency === 'USD';
    case 'paypal':
      return currency !== 'KES';
    case 'external_wallet':
      return asset === 'USDT' || asset === 'USDC';
    case 'service_balance':
      return true;
  }
}

export function methodsFor(currency: FiatCurrency, asset: SettlementAsset): PaymentMethod[] {
  return PAYMENT_METHODS.filter((m) => methodAllowed(m, currency, asset));
}

export function whyUnavailable(method: PaymentMethod): string {
  switch (method) {
    case 'mpesa':
      return 'mpesa is for KES only';
    case 'card':
      return 'card is for KES and USD only';
    case 'paypal':
      return 'paypal is for every currency but KES';
    case 'external_wallet':
      return 'external_wallet needs settlement_currency USDT or USDC';
    case 'service_balance':
      return 'service_balance is always available';
  }
}
