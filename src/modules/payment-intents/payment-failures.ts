// Why a pay attempt failed (a failed attempt leaves the intent payable; only the fifth ends it):
// the closed list of failure codes every rail reports, and the words the merchant and the customer see.

export const FAILURE_CODES = [
  'card_declined',
  'insufficient_funds',
  'invalid_pin',
  'timeout',
  'customer_cancelled',
  'provider_error',
] as const;
export type FailureCode = (typeof FAILURE_CODES)[number];

/** Failed attempts of one intent after which it fails for good. */
export const MAX_FAILED_ATTEMPTS = 5;

const MESSAGES: Record<FailureCode, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'There was not enough money in the account.',
  invalid_pin: 'The PIN entered was wrong.',
  timeout: 'The payment request was not answered in time.',
  customer_cancelled: 'The payment was cancelled on the phone.',
  provider_error: 'The payment provider could not complete the payment.',
};

export function isFailureCode(code: string): code is FailureCode {
  return (FAILURE_CODES as readonly string[]).includes(code);
}

/** The message of a failure, with the provider's own words for a provider error when it gave any. */
export function failureMessage(code: FailureCode, providerText?: string): string {
  return code === 'provider_error' && providerText ? `${MESSAGES.provider_error} The provider said: ${providerText}` : MESSAGES[code];
}

/** The failure a sandbox failed attempt reports when none is named: what that method most often meets. */
export function defaultFailureFor(method: string): FailureCode {
  return method === 'card' ? 'card_declined' : method === 'mpesa' ? 'customer_cancelled' : 'provider_error';
}
