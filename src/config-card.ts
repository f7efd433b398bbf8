// The live card rail's variables (Paystack): their schema and CardConfig. Kept beside config.ts, which
// reads them with the rest of the environment, once, at start.
import { Type } from 'typebox';

export const cardVariables = () => ({
  COWRIE_PAYSTACK_SECRET_KEY: Type.Optional(Type.String({ minLength: 8, pattern: '^\\S+$' })),
  COWRIE_PAYSTACK_BASE_URL: Type.String({ default: 'https://api.paystack.co', pattern: '^https?://[^/]+(/.*)?$' }),
  COWRIE_PAYSTACK_QUERY_AFTER_S: Type.Integer({ default: 60, minimum: 1, maximum: 3600 }),
});

export interface CardVariables {
  COWRIE_PAYSTACK_SECRET_KEY?: string;
  COWRIE_PAYSTACK_BASE_URL: string;
  COWRIE_PAYSTACK_QUERY_AFTER_S: number;
}

/** The live card rail through Paystack: on when its secret key is set. */
export interface CardConfig {
  readonly secretKey: string;
  /** Paystack's API base, without a trailing slash. */
  readonly baseUrl: string;
  /** The live origin: the customer comes back to `<origin>/rails/paystack/return`. */
  readonly returnOrigin: string;
  /** The first question about a payment with no answer comes this long after the redirect. */
  readonly queryAfterS: number;
}

export function cardConfig(c: CardVariables, liveOrigin: string): CardConfig | null {
  if (c.COWRIE_PAYSTACK_SECRET_KEY === undefined) return null;
  return Object.freeze({
    secretKey: c.COWRIE_PAYSTACK_SECRET_KEY,
    baseUrl: c.COWRIE_PAYSTACK_BASE_URL.replace(/\/+$/, ''),
    returnOrigin: liveOrigin.replace(/\/+$/, ''),
    queryAfterS: c.COWRIE_PAYSTACK_QUERY_AFTER_S,
  });
}
