// The API's scope names, the customer scopes among them; the `payment:links:*` spellings are aliases of
// `payment_links:*`. A route lists the scopes it accepts and any one of them suffices.
export const SCOPES = [
  'payments:read',
  'payments:write',
  'checkout:write',
  'payment_links:read',
  'payment_links:write',
  'refunds:read',
  'refunds:write',
  'webhooks:read',
  'webhooks:write',
  'balances:read',
  'settlements:read',
  'reports:read',
  'customers:read',
  'customers:write',
  'payouts:read',
  'payouts:write',
] as const;

export type Scope = (typeof SCOPES)[number];

const ALIASES: Record<string, Scope> = {
  'payment:links:read': 'payment_links:read',
  'payment:links:write': 'payment_links:write',
};

/** The canonical scope for a name or alias, or null for an unknown name. */
export function canonicalScope(name: string): Scope | null {
  if ((SCOPES as readonly string[]).includes(name)) return name as Scope;
  return ALIASES[name] ?? null;
}

export function hasAnyScope(held: readonly Scope[], accepted: readonly Scope[]): boolean {
  return accepted.some((s) => held.includes(s));
}

/** What a key may do: secret keys hold every scope, restricted keys their own, publishable keys none. */
export function heldScopes(type: 'secret' | 'restricted' | 'publishable', restricted: readonly Scope[]): Scope[] {
  if (type === 'secret') return [...SCOPES];
  if (type === 'restricted') return [...restricted];
  return [];
}
