// The live PayPal rail's variables (Orders v2): their schema and PaypalConfig. Kept beside config.ts, which
// reads them with the rest of the environment, once, at start.
import { Type } from 'typebox';
import { ConfigError } from './config-error.js';

export const paypalVariables = () => ({
  COWRIE_PAYPAL_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, pattern: '^\\S+$' })),
  COWRIE_PAYPAL_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, pattern: '^\\S+$' })),
  COWRIE_PAYPAL_WEBHOOK_ID: Type.Optional(Type.String({ minLength: 1, maxLength: 50, pattern: '^[A-Za-z0-9]+$' })),
  COWRIE_PAYPAL_BASE_URL: Type.String({ default: 'https://api-m.paypal.com', pattern: '^https?://[^/]+(/.*)?$' }),
  COWRIE_PAYPAL_QUERY_AFTER_S: Type.Integer({ default: 60, minimum: 1, maximum: 3600 }),
});

export interface PaypalVariables {
  COWRIE_PAYPAL_CLIENT_ID?: string;
  COWRIE_PAYPAL_CLIENT_SECRET?: string;
  COWRIE_PAYPAL_WEBHOOK_ID?: string;
  COWRIE_PAYPAL_BASE_URL: string;
  COWRIE_PAYPAL_QUERY_AFTER_S: number;
}

/** The live PayPal rail: on when its client id, client secret and webhook id are all set. */
export interface PaypalConfig {
  readonly clientId: string;
  readonly clientSecret: string;
  /** The webhook's id at PayPal, sent with every signature check. */
  readonly webhookId: string;
  /** PayPal's API base, without a trailing slash. */
  readonly baseUrl: string;
  /** The live origin: the customer comes back to `<origin>/rails/paypal/return` (or `/cancel`). */
  readonly returnOrigin: string;
  /** The first look-up of an order with no return or webhook comes this long after the redirect. */
  readonly queryAfterS: number;
}

const NAMES = ['COWRIE_PAYPAL_CLIENT_ID', 'COWRIE_PAYPAL_CLIENT_SECRET', 'COWRIE_PAYPAL_WEBHOOK_ID'] as const;

/** Null when none of the three is set; all three or none (a partial set is refused, naming what is missing). */
export function paypalConfig(c: PaypalVariables, liveOrigin: string): PaypalConfig | null {
  const missing = NAMES.filter((n) => c[n] === undefined);
  if (missing.length === NAMES.length) return null;
  if (missing.length > 0)
    throw new ConfigError(
      `Invalid configuration:\n  ${missing.join(', ')} must be set too: the live PayPal rail needs all of ${NAMES.join(', ')}`,
    );
  return Object.freeze({
    clientId: c.COWRIE_PAYPAL_CLIENT_ID!,
    clientSecret: c.COWRIE_PAYPAL_CLIENT_SECRET!,
    webhookId: c.COWRIE_PAYPAL_WEBHOOK_ID!,
    baseUrl: c.COWRIE_PAYPAL_BASE_URL.replace(/\/+$/, ''),
    returnOrigin: liveOrigin.replace(/\/+$/, ''),
    queryAfterS: c.COWRIE_PAYPAL_QUERY_AFTER_S,
  });
}
