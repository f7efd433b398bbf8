// What a customer types at the checkout, checked the way a provider would: card number (Luhn), expiry
// and CVC; M-Pesa phone numbers; wallet networks. The sandbox test values live here too.
import { AppError } from '../../shared/errors.js';
import type { FailureCode } from '../payment-intents/index.js';

/** Luhn (mod 10) check of a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^[0-9]+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export interface CardInput {
  number: string;
  /** MM/YY (or MM/YYYY). */
  expiry: string;
  cvc: string;
}

export interface CheckedCard {
  number: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** Validates a card; `nowMs` is the merchant's clock (a card expires after the last day of its month). */
export function checkCard(input: CardInput, nowMs: number): CheckedCard {
  const number = input.number.replace(/[\s-]/g, '');
  if (!/^[0-9]{12,19}$/.test(number)) {
    throw new AppError('parameter_invalid', 'Enter the card number: 12 to 19 digits.', { param: 'card_number' });
  }
  if (!luhnValid(number)) {
    throw new AppError('parameter_invalid', 'This card number is not valid; check the digits.', { param: 'card_number' });
  }
  const m = /^\s*(0[1-9]|1[0-2])\s*\/\s*([0-9]{2}|[0-9]{4})\s*$/.exec(input.expiry);
  if (!m) throw new AppError('parameter_invalid', 'Enter the expiry date as MM/YY.', { param: 'card_expiry' });
  const expMonth = Number(m[1]);
  const expYear = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  const now = new Date(nowMs);
  const endOfMonth = Date.UTC(expYear, expMonth, 1); // first instant after the expiry month
  if (endOfMonth <= nowMs) throw new AppError('parameter_invalid', 'This card has expired.', { param: 'card_expiry' });
  if (expYear > now.getUTCFullYear() + 20) throw new AppError('parameter_invalid', 'Check the expiry year.', { param: 'card_expiry' });
  const cvcLength = /^3[47]/.test(number) ? 4 : 3;
  if (!new RegExp(`^[0-9]{${cvcLength}}$`).test(input.cvc.trim())) {
    throw new AppError('parameter_invalid', `Enter the ${cvcLength}-digit security code (CVC).`, { param: 'card_cvc' });
  }
  return { number, last4: number.slice(-4), expMonth, expYear };
}

export type SandboxCardResult = { outcome: 'success'; thenDispute: boolean } | { outcome: 'attempt_failed'; failureCode: FailureCode };

/** The sandbox test cards (docs/api-reference.md, "Hosted checkout"). Any other valid card succeeds. */
export function sandboxCardResult(number: string): SandboxCardResult {
  switch (number) {
    case '4000000000000002':
      return { outcome: 'attempt_failed', failureCode: 'card_declined' };
    case '4000000000009995':
      return { outcome: 'attempt_failed', failureCode: 'insufficient_funds' };
    case '4000000000000259':
      return { outcome: 'success', thenDispute: true };
    default:
      return { outcome: 'success', thenDispute: false };
  }
}

/** A Kenyan mobile number in international form (+2547XXXXXXXX or +2541XXXXXXXX), or an error. */
export function normalizeMpesaPhone(text: string): string {
  let p = text.replace(/[\s().-]/g, '');
  if (/^0[17][0-9]{8}$/.test(p)) p = `+254${p.slice(1)}`;
  else if (/^254[17][0-9]{8}$/.test(p)) p = `+${p}`;
  if (!/^\+254[17][0-9]{8}$/.test(p)) {
    throw new AppError('parameter_invalid', 'Enter an M-Pesa phone number such as +254712345678 or 0712345678.', { param: 'phone' });
  }
  return p;
}

export function maskPhone(phone: string): string {
  return `${phone.slice(0, 4)}•••••${phone.slice(-3)}`;
}

export type SandboxMpesaResult =
  | { outcome: 'success' }
  | { outcome: 'review' }
  | { outcome: 'attempt_failed'; failureCode: 'customer_cancelled' | 'insufficient_funds' | 'timeout' };

/** The sandbox test phone numbers (docs/api-reference.md, "Hosted checkout"). Any other valid number succeeds. */
export function sandboxMpesaResult(phone: string): SandboxMpesaResult {
  switch (phone) {
    case '+254700000002':
      return { outcome: 'attempt_failed', failureCode: 'customer_cancelled' };
    case '+254700000003':
      return { outcome: 'attempt_failed', failureCode: 'insufficient_funds' };
    case '+254700000004':
      return { outcome: 'attempt_failed', failureCode: 'timeout' };
    case '+254700000005':
      return { outcome: 'review' };
    default:
      return { outcome: 'success' };
  }
}

/** Networks the external-wallet checkout offers. */
export const WALLET_NETWORKS = ['tron', 'solana', 'base', 'polygon'] as const;
export type WalletNetwork = (typeof WALLET_NETWORKS)[number];
export const WALLET_NETWORK_NAMES: Record<WalletNetwork, string> = { tron: 'TRON', solana: 'Solana', base: 'Base', polygon: 'Polygon' };
export const WALLET_ASSETS = ['USDT', 'USDC'] as const;

export function requireNetwork(text: unknown, param = 'network'): WalletNetwork {
  if (typeof text === 'string' && (WALLET_NETWORKS as readonly string[]).includes(text.toLowerCase()))
    return text.toLowerCase() as WalletNetwork;
  throw new AppError('parameter_invalid', `Choose a network: ${Object.values(WALLET_NETWORK_NAMES).join(', ')}.`, { param });
}
