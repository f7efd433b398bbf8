// External-wallet payments: each open intent gets, per network, an exact amount whose last decimals are
// its own (the amount due plus a tag of 1 to 9999 millionths). Allocation runs in a transaction under a
// partial unique index over (environment, network, asset, address, amount) WHERE state = 'open', so two
// intents never share all four while one is open or ended less than a day ago; a race loses on the index and retries. Deposits are matched on all
// four exactly; anything else is kept as an unmatched deposit for the merchant to see.
import { randomBytes } from 'node:crypto';
import { isTransientConflict, isUniqueViolation } from '../../db/dialect.js';
import type { PaymentIntentRow, WalletAllocationRow } from '../../db/schema.js';
import { transaction, type Db } from '../../db/transaction.js';
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
  for (let attempt = 0; ; attempt++) {
    try {
      return await transaction(db, async (trx) => {
        const now = nowMs();
        const row = await lockIntent(trx, scope, intent.id);
        if (!row || !isPayable(row, now)) {
          throw new AppError('intent_not_payable', 'This payment is no longer awaiting payment.');
        }
        const existing = await repo.findOpenAllocation(trx, row.id, network);
        if (existing) return instruction(existing);
        const slot = { environment: scope.environment, network, asset, address };
        // An amount stays reserved a day after its intent ended (or expired unpaid): a late payment of it finds
        // its own intent and is kept as an unmatched deposit, never credited to another intent.
        const open = await repo.openAllocationIntents(trx, slot);
        await repo.releaseAllocations(trx, slot, await intentsEndedBefore(trx, open, now - repo.RESERVED_AFTER_END_MS));
        const taken = await repo.openAmounts(trx, slot);
        const due = new Decimal(row.pay_amount).minus(row.amount_received);
        let amount: string | null = null;
        for (let tag = 1; tag <= MAX_TAG; tag++) {
          const candidate = formatAmount(due.plus(TAG_UNIT.mul(tag)), asset as SettlementAsset);
          if (!taken.has(candidate)) {
            amount = candidate;
            break;
          }
        }
        if (amount === null) {
          throw new AppError(
            'payment_method_unavailable',
            'Too many open wallet payments of this amount on this network; choose another network.',
            { param: 'network' },
          );
        }
        const allocation: WalletAllocationRow = {
          id: newId('wallet_allocation'),
          merchant_id: scope.merchantId,
          environment: scope.environment,
          payment_intent_id: row.id,
          network,
          asset,
          address,
          amount,
          state: 'open',
          expires_at: row.expires_at,
          created_at: now,
        };
        await repo.insertAllocation(trx, allocation);
        return instruction(allocation);
      });
    } catch (err) {
      // Another intent took the same amount at the same moment (the unique index refused ours), or two
      // allocations releasing the same stale rows deadlocked (PostgreSQL chose ours): try again.
      // Each round one of the contenders wins, so as many rounds as contenders may be needed; a short random
      // pause spreads them out.
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
  const match = await repo.findMatch(db, { environment: scope.environment, network, asset, address }, amount);

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
