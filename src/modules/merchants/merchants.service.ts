// Merchants, their default app and first keys; KYB verification, receiving caps and suspension are the
// operator's (the `cowrie merchants …` commands).
import type { Merchant } from '../../db/schema.js';
import { transaction, type Db, type Q } from '../../db/transaction.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { parsePositiveDecimal } from '../../shared/money.js';
import { issueKey, type IssueKeyInput, type IssuedKey } from '../keys/index.js';
import * as repo from './merchants.repo.js';

export interface MerchantView {
  id: string;
  object: 'merchant';
  name: string;
  kyb_status: Merchant['kyb_status'];
  status: Merchant['status'];
  limits: { per_payment: string | null; daily: string | null; monthly: string | null };
  created_at: string;
}

export function merchantView(m: Merchant): MerchantView {
  return {
    id: m.id,
    object: 'merchant',
    name: m.name,
    kyb_status: m.kyb_status,
    status: m.status,
    limits: { per_payment: m.limit_per_payment, daily: m.limit_daily, monthly: m.limit_monthly },
    created_at: new Date(m.created_at).toISOString(),
  };
}

export interface CreatedMerchant {
  merchant: MerchantView;
  keys: { test_secret: string; test_publishable: string; live_secret?: string };
  app_id: string;
}

export async function createMerchant(db: Db, clock: Clock, input: { name: string; verified?: boolean }): Promise<CreatedMerchant> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) {
    throw new AppError('parameter_invalid', 'A merchant name is 1 to 200 characters', { param: 'name' });
  }
  return transaction(db, (trx) => insertMerchantWithKeys(trx, clock, name, input.verified ?? false));
}

async function insertMerchantWithKeys(db: Q, clock: Clock, name: string, verified: boolean): Promise<CreatedMerchant> {
  const now = clock.nowMs();
  const merchant: Merchant = {
    id: newId('merchant'),
    name,
    kyb_status: verified ? 'verified' : 'pending',
    status: 'active',
    limit_per_payment: null,
    limit_daily: null,
    limit_monthly: null,
    created_at: now,
  };
  await repo.insertMerchant(db, merchant);
  const appId = newId('app');
  await repo.insertApp(db, { id: appId, merchant_id: merchant.id, name: 'Default app', is_default: 1, created_at: now });
  const testSecret: IssuedKey = await issueKey(db, clock, merchant, { environment: 'test', type: 'secret', appId });
  const testPublishable = await issueKey(db, clock, merchant, { environment: 'test', type: 'publishable', appId });
  const keys: CreatedMerchant['keys'] = { test_secret: testSecret.key, test_publishable: testPublishable.key };
  if (verified) keys.live_secret = (await issueKey(db, clock, merchant, { environment: 'live', type: 'secret', appId })).key;
  return { merchant: merchantView(merchant), keys, app_id: appId };
}

export interface CreateKeyInput extends Omit<IssueKeyInput, 'appId'> {
  merchantId: string;
  /** The merchant's default app when omitted. */
  appId?: string;
}

/** A new key for a merchant (`cowrie keys create`): live keys only for a verified merchant. */
export async function createKey(db: Db, clock: Clock, input: CreateKeyInput): Promise<IssuedKey> {
  const merchant = await repo.findMerchant(db, input.merchantId);
  if (!merchant) throw new AppError('resource_missing', `No such merchant: '${input.merchantId}'`, { param: 'merchant' });
  const appId = input.appId ?? (await repo.findDefaultAppId(db, merchant.id));
  if (!appId) throw new Error(`merchant ${merchant.id} has no default app`);
  return issueKey(db, clock, merchant, { ...input, appId });
}

async function requireMerchant(db: Db, id: string): Promise<Merchant> {
  const m = await repo.findMerchant(db, id);
  if (!m) throw new AppError('resource_missing', `No such merchant: '${id}'`, { param: 'id' });
  return m;
}

export async function verifyMerchant(db: Db, id: string): Promise<MerchantView> {
  await requireMerchant(db, id);
  await repo.updateMerchant(db, id, { kyb_status: 'verified', kyb_reason: null });
  return merchantView(await requireMerchant(db, id));
}

/** Business verification (KYB): what the owner submits in the console. */
export interface VerificationDetails {
  legal_name: string;
  registration_number: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  address: string;
  contact_name: string;
  contact_email: string;
}

const VERIFICATION_FIELDS: Record<keyof VerificationDetails, { label: string; max: number; pattern?: RegExp }> = {
  legal_name: { label: 'Legal name', max: 200 },
  registration_number: { label: 'Registration number', max: 64 },
  country: { label: 'Country', max: 2, pattern: /^[A-Z]{2}$/ },
  address: { label: 'Address', max: 500 },
  contact_name: { label: 'Contact name', max: 200 },
  contact_email: { label: 'Contact email', max: 254, pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/ },
};

/** Checks the owner's submission; answers it cleaned, or the first field that is wrong. */
export function checkVerification(input: Record<string, unknown>): VerificationDetails {
  const out: Record<string, string> = {};
  for (const [name, rule] of Object.entries(VERIFICATION_FIELDS)) {
    let value = typeof input[name] === 'string' ? (input[name] as string).trim() : '';
    if (name === 'country') value = value.toUpperCase();
    if (value.length === 0 || value.length > rule.max || (rule.pattern && !rule.pattern.test(value))) {
      throw new AppError(
        'parameter_invalid',
        name === 'country'
          ? 'Enter the country as its two-letter code (KE, NG, US, ...).'
          : `Enter the ${rule.label.toLowerCase()} (up to ${rule.max} characters).`,
        { param: name },
      );
    }
    out[name] = value;
  }
  return out as unknown as VerificationDetails;
}

/** The owner submits (or submits again after a refusal): pending or rejected -> in_review. */
export async function submitVerification(db: Db, id: string, details: VerificationDetails, now: number): Promise<void> {
  const m = await requireMerchant(db, id);
  if (m.kyb_status === 'verified') throw new AppError('parameter_invalid', 'This business is verified already.');
  await repo.updateMerchant(db, id, {
    kyb_status: 'in_review',
    kyb_details: JSON.stringify(details),
    kyb_reason: null,
    kyb_submitted_at: now,
  });
}

/** The operator refuses a verification with a reason the owner sees; the owner may submit again. */
export async function rejectMerchant(db: Db, id: string, reason: string): Promise<MerchantView> {
  const m = await requireMerchant(db, id);
  const text = reason.trim();
  if (text.length === 0 || text.length > 1000)
    throw new AppError('parameter_invalid', 'Give a reason of 1 to 1000 characters.', { param: 'reason' });
  if (m.kyb_status === 'verified')
    throw new AppError('parameter_invalid', 'This merchant is verified; a verified business cannot be refused.');
  await repo.updateMerchant(db, id, { kyb_status: 'rejected', kyb_reason: text });
  return merchantView(await requireMerchant(db, id));
}

export async function verificationOf(db: Db, id: string) {
  const v = await repo.findVerification(db, id);
  if (!v) throw new AppError('resource_missing', `No such merchant: '${id}'`, { param: 'id' });
  return {
    status: v.kyb_status,
    reason: v.kyb_reason,
    details: v.kyb_details === null ? null : (JSON.parse(v.kyb_details) as VerificationDetails),
    submittedAt: v.kyb_submitted_at === null ? null : Number(v.kyb_submitted_at),
  };
}

export async function setMerchantStatus(db: Db, id: string, status: Merchant['status']): Promise<MerchantView> {
  await requireMerchant(db, id);
  await repo.updateMerchant(db, id, { status });
  return merchantView(await requireMerchant(db, id));
}

export interface LimitsInput {
  perPayment?: string;
  daily?: string;
  monthly?: string;
}

/** Sets receiving caps; a value of `none` removes that cap. */
export async function setMerchantLimits(db: Db, id: string, input: LimitsInput): Promise<MerchantView> {
  await requireMerchant(db, id);
  const patch: Partial<Merchant> = {};
  const fields = [
    ['perPayment', 'limit_per_payment', 'per_payment'],
    ['daily', 'limit_daily', 'daily'],
    ['monthly', 'limit_monthly', 'monthly'],
  ] as const;
  for (const [from, column, param] of fields) {
    const value = input[from];
    if (value === undefined) continue;
    if (value === 'none') {
      patch[column] = null;
      continue;
    }
    const d = parsePositiveDecimal(value);
    if (!d || d.decimalPlaces() > 2) {
      throw new AppError('parameter_invalid', `${param} must be a positive decimal with at most 2 decimals, or 'none'`, { param });
    }
    patch[column] = d.toFixed();
  }
  if (Object.keys(patch).length === 0) {
    throw new AppError('parameter_missing', 'Give at least one of --per-payment, --daily, --monthly', { param: 'limits' });
  }
  await repo.updateMerchant(db, id, patch);
  return merchantView(await requireMerchant(db, id));
}

/**
 * On first start with an empty database, a demo merchant with sandbox keys, so a newcomer can call the API
 * at once. A flag row makes this happen once even when several processes start together.
 */
export async function seedDemoMerchant(db: Db, clock: Clock): Promise<CreatedMerchant | null> {
  if ((await repo.countMerchants(db)) > 0) return null;
  return transaction(db, async (trx) => {
    if (!(await repo.claimSystemFlag(trx, 'demo_merchant_seeded', clock.nowMs()))) return null;
    if ((await repo.countMerchants(trx)) > 0) return null;
    return insertMerchantWithKeys(trx, clock, 'Demo merchant', false);
  });
}
