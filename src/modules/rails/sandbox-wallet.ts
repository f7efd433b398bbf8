// External-wallet payments: each open intent gets, per network, an exact amount whose last decimals are
// its own (the amount due plus a tag of 1 to 9999 millionths). Allocation runs in a transaction under a
// partial unique index over (environment, network, asset, address, amount) WHERE state = 'open', so two
// intents (or an intent and a payer's top-up, which take amounts from the same space) never share all four
// while one is open or ended less than a day ago; a race loses on the index and retries. Deposits are matched on all
// four exactly; anything else is kept as an unmatched deposit for the merchant to see.
import { randomBytes } from 'node:crypto';
import { isTransientConflict, isUniqueViolation } from '../../db/dialect.js';
import type { PaymentIntentRow, WalletAllocationRow } from '../../db/schema.js';
import { transaction, type Db, type Tx } from '../../db/transaction.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, parseAmount, type SettlementAsset } from '../../shared/money.js';
import { requireNetwork, WALLET_ASSETS, type WalletNetwork } from './payment-details.js';
import type { MerchantScope } from '../../shared/scope.js';
import { intentsEndedBefore, isPayable, lockIntent } from '../payment-intents/index.js';
import type { DepositResult, SimulatedDeposit } from '../payment-intents/index.js';
import type { PaymentService } from '../payments/index.js';
import * as repo from './wallet.repo.js';
import { sandboxDepositAddress } from './wallet-addresses.js';

const TAG_UNIT = new Decimal('0.000001');
const MAX_TAG = 9999;
const ALLOCATION_RETRIES = 64;

export interface WalletInstruction {
  network: WalletNetwork;
  asset: string;
  address: string;
  amount: string;
}

function instruction(a: WalletAllocationRow): WalletInstruction {
  return { network: a.network as WalletNetwork, asset: a.asset, address: a.address, amount: a.amount };
}

/** The exact amount an intent expects on a network: the open one it has, or a new unique one. */
export async function allocateWalletAmount(
  db: Db,
  scope: MerchantScope,
  intent: PaymentIntentRow,
  networkText: unknown,
  nowMs: () => number,
  /** Where customers pay on a network, or null when the network is not offered. */
  addressOn: (network: WalletNetwork) => string | null = (n) => sandboxDepositAddress(scope.merchantId, scope.environment, n),
): Promise<WalletInstruction> {
  const network = requireNetwork(networkText);
  const asset = intent.settlement_currency;
  if (!(WALLET_ASSETS as readonly string[]).includes(asset)) {
    throw new AppError('payment_method_unavailable', 'External wallets are only for intents settling in USDT or USDC.', {
      param: 'payment_method',
    });
  }
  const address = addressOn(network);
  if (address === null) {
    throw new AppError('payment_method_unavailable', 'This network is not offered for wallet payments here; choose another network.', {
      param: 'network',
    });
  }
  return withAllocationRetries(() =>
    transaction(db, async (trx) => {
      const now = nowMs();
      const row = await lockIntent(trx, scope, intent.id);
      if (!row || !isPayable(row, now)) {
        throw new AppError('intent_not_payable', 'This payment is no longer awaiting payment.');
      }
      const existing = await repo.findOpenAllocation(trx, row.id, network);
      if (existing) return instruction(existing);
      const slot = { environment: scope.environment, network, asset, address };
      const due = new Decimal(row.pay_amount).minus(row.amount_received);
      const owner = { merchant_id: scope.merchantId, payment_intent_id: row.id, payer_topup_id: null, expires_at: row.expires_at };
      return instruction(await reserveTaggedAmount(trx, slot, due, owner, now));
    }),
  );
}

/** Who an allocation's amount is reserved for: an intent (with its merchant) or a payer's top-up, and until when. */
export type AllocationOwner = Pick<WalletAllocationRow, 'merchant_id' | 'payment_intent_id' | 'payer_topup_id' | 'expires_at'>;

/**
 * Reserves, in the caller's transaction, the first free exact amount of `due` plus a tag on one address
 * for its owner, intents and payers' top-ups alike (one allocation space, one unique index). Reservations
 * that ended more than a day ago are released first.
 */
export async function reserveTaggedAmount(
  trx: Tx,
  slot: repo.Slot,
  due: Decimal,
  owner: AllocationOwner,
  now: number,
): Promise<WalletAllocationRow> {
  // An amount stays reserved a day after its intent ended (or expired unpaid), or its top-up expired: a late
  // payment of it finds its own owner and is kept as an unmatched deposit, never credited to another.
  const open = await repo.openAllocationIntents(trx, slot);
  await repo.releaseAllocations(trx, slot, await intentsEndedBefore(trx, open, now - repo.RESERVED_AFTER_END_MS));
  await repo.releaseTopupAllocations(trx, slot, now - repo.RESERVED_AFTER_END_MS);
  const taken = await repo.openAmounts(trx, slot);
  let amount: string | null = null;
  for (let tag = 1; tag <= MAX_TAG; tag++) {
    const candidate = formatAmount(due.plus(TAG_UNIT.mul(tag)), slot.asset as SettlementAsset);
    if (!taken.has(candidate)) {
      amount = candidate;
      break;
    }
  }
  if (amount === null) {
    throw new AppError(
      'payment_method_unavailable',
      'Too many open wallet payments of this amount on this network; choose another network.',
      {
        param: 'network',
      },
    );
  }
  const allocation: WalletAllocationRow = {
    id: newId('wallet_allocation'),
    environment: slot.environment,
    network: slot.network,
    asset: slot.asset,
    address: slot.address,
    amount,
    state: 'open',
    created_at: now,
    ...owner,
  };
  await repo.insertAllocation(trx, allocation);
  return allocation;
}

/**
 * Runs a reservation again when it lost a race: another owner took the same amount at the same moment (the
 * unique index refused ours), or two reservations releasing the same stale rows deadlocked (PostgreSQL
 * chose ours). Each round one of the contenders wins, so as many rounds as contenders may be needed; a
 * short random pause spreads them out.
 */
export async function withAllocationRetries<T>(reserve: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await reserve();
    } catch (err) {
      if ((isUniqueViolation(err) || isTransientConflict(err)) && attempt < ALLOCATION_RETRIES) {
        await new Promise((r) => setTimeout(r, Math.random() * 4));
        continue;
      }
      throw err;
    }
  }
}

/** Sandbox chain watcher: a deposit arrives. Only the exact amount, asset and network is credited. */
export async function receiveDeposit(
  db: Db,
  payments: PaymentService,
  scope: MerchantScope,
  deposit: SimulatedDeposit,
  now: number,
): Promise<DepositResult> {
  const network = requireNetwork(deposit.network);
  if (!(WALLET_ASSETS as readonly string[]).includes(deposit.asset)) {
    throw new AppError('parameter_invalid', 'Choose the asset sent: USDT or USDC.', { param: 'asset' });
  }
  const asset = deposit.asset as SettlementAsset;
  const parsed = parseAmount(deposit.amount, asset);
  if (!parsed.ok) throw new AppError('parameter_invalid', `Invalid amount: ${parsed.message}.`, { param: 'amount' });
  const amount = formatAmount(parsed.value, asset);
  const address = sandboxDepositAddress(scope.merchantId, scope.environment, network);
  const found = await repo.findMatch(db, { environment: scope.environment, network, asset, address }, amount);
  // Sandbox addresses are the merchant's own: only intents hold amounts on them.
  const match = found?.payment_intent_id ? { payment_intent_id: found.payment_intent_id } : undefined;

  const id = newId('wallet_deposit');
  // The deposit's record and what it paid commit together.
  return transaction(db, async (tx) => {
    let status: 'credited' | 'unmatched' = 'unmatched';
    let reason: string | null = 'no_matching_payment';
    if (match) {
      // The allocation stays open (its amount reserved) until a day after its intent ends: a second exact
      // deposit finds the paid intent again and is a duplicate payment, credited to the merchant.
      const applied = await payments.applyIn(tx, scope, {
        intentId: match.payment_intent_id,
        method: 'external_wallet',
        outcome: 'success',
        amount: parsed.value,
      });
      status = applied.ok ? 'credited' : 'unmatched';
      reason = applied.ok ? (applied.outcome === 'duplicate' ? 'duplicate_payment' : null) : applied.error.code;
    }
    await repo.insertDeposit(tx, {
      id,
      merchant_id: scope.merchantId,
      environment: scope.environment,
      network,
      asset,
      address,
      amount,
      tx_hash: `0x${randomBytes(32).toString('hex')}`,
      status,
      reason,
      payment_intent_id: match?.payment_intent_id ?? null,
      created_at: now,
    });
    return { id, status, reason, payment_intent: match?.payment_intent_id ?? null };
  });
}
