// External-wallet payments: each open intent gets, per network, an exact amount whose last decimals are
// its own (the amount due plus a tag of 1 to 9999 millionths). Allocation runs in a transaction under a
// partial unique index over (environment, network, asset, address, amount) WHERE state = 'open', so two
// open intents never share all four; a race loses on the index and retries. Deposits are matched on all
// four exactly; anything else is kept as an unmatched deposit for the merchant to see.
import type { Kysely } from 'kysely';
import type { DB, PaymentIntentRow } from '../../db/schema.js';
import type { WalletAllocationRow } from '../../db/schema-checkout.js';
import { forUpdate, isUniqueViolation } from '../../db/dialect.js';
import { randomBytes } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { Decimal, formatAmount, parseAmount, type SettlementAsset } from '../../shared/money.js';
import { requireNetwork, WALLET_ASSETS, type WalletNetwork } from './payment-details.js';
import type { DepositResult, PaymentOutcomeSink, RailScope, SimulatedDeposit } from './rail.js';
import { sandboxDepositAddress } from './wallet-addresses.js';

const TAG_UNIT = new Decimal('0.000001');
const MAX_TAG = 9999;
const ALLOCATION_RETRIES = 8;

export interface WalletInstruction {
  network: WalletNetwork;
  asset: string;
  address: string;
  amount: string;
}

function instruction(a: WalletAllocationRow): WalletInstruction {
  return { network: a.network as WalletNetwork, asset: a.asset, address: a.address, amount: a.amount };
}

/** Releases open allocations on one address that no longer belong to an open intent. */
async function releaseStale(trx: Kysely<DB>, scope: RailScope, network: string, asset: string, address: string, now: number): Promise<void> {
  await trx
    .updateTable('wallet_allocations')
    .set({ state: 'released' })
    .where('state', '=', 'open')
    .where('environment', '=', scope.environment)
    .where('network', '=', network)
    .where('asset', '=', asset)
    .where('address', '=', address)
    .where((eb) =>
      eb.or([
        eb('expires_at', '<=', now),
        eb(
          'payment_intent_id',
          'in',
          eb.selectFrom('payment_intents').select('id').where('merchant_id', '=', scope.merchantId).where('status', '<>', 'awaiting_payment'),
        ),
      ]),
    )
    .execute();
}

/** The exact amount an intent expects on a network: the open one it has, or a new unique one. */
export async function allocateWalletAmount(
  db: Kysely<DB>,
  scope: RailScope,
  intent: PaymentIntentRow,
  networkText: unknown,
  nowMs: () => number,
): Promise<WalletInstruction> {
  const network = requireNetwork(networkText);
  const asset = intent.settlement_currency;
  if (!(WALLET_ASSETS as readonly string[]).includes(asset)) {
    throw new AppError('payment_method_unavailable', 'External wallets are only for intents settling in USDT or USDC.', { param: 'payment_method' });
  }
  const address = sandboxDepositAddress(scope.merchantId, scope.environment, network);
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        const now = nowMs();
        const row = await forUpdate(
          trx,
          trx.selectFrom('payment_intents').selectAll().where('id', '=', intent.id).where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment),
        ).executeTakeFirst();
        if (!row || row.status !== 'awaiting_payment' || row.expires_at <= now) {
          throw new AppError('intent_not_payable', 'This payment is no longer awaiting payment.');
        }
        const existing = await trx
          .selectFrom('wallet_allocations')
          .selectAll()
          .where('payment_intent_id', '=', row.id)
          .where('network', '=', network)
          .where('state', '=', 'open')
          .executeTakeFirst();
        if (existing) return instruction(existing);
        await releaseStale(trx, scope, network, asset, address, now);
        const taken = new Set(
          (
            await trx
              .selectFrom('wallet_allocations')
              .select('amount')
              .where('state', '=', 'open')
              .where('environment', '=', scope.environment)
              .where('network', '=', network)
              .where('asset', '=', asset)
              .where('address', '=', address)
              .execute()
          ).map((r) => r.amount),
        );
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
          throw new AppError('payment_method_unavailable', 'Too many open wallet payments of this amount on this network; choose another network.', { param: 'network' });
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
        await trx.insertInto('wallet_allocations').values(allocation).execute();
        return instruction(allocation);
      });
    } catch (err) {
      // Another intent took the same amount at the same moment: the unique index refused ours; try again.
      if (isUniqueViolation(err) && attempt < ALLOCATION_RETRIES) continue;
      throw err;
    }
  }
}

/** Sandbox chain watcher: a deposit arrives. Only the exact amount, asset and network is credited. */
export async function receiveDeposit(
  db: Kysely<DB>,
  sink: PaymentOutcomeSink,
  scope: RailScope,
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
  const match = await db
    .selectFrom('wallet_allocations')
    .selectAll()
    .where('state', '=', 'open')
    .where('environment', '=', scope.environment)
    .where('network', '=', network)
    .where('asset', '=', asset)
    .where('address', '=', address)
    .where('amount', '=', amount)
    .executeTakeFirst();

  let status: 'credited' | 'unmatched' = 'unmatched';
  let reason: string | null = 'no_matching_payment';
  if (match) {
    try {
      await sink.report(scope, { intentId: match.payment_intent_id, method: 'external_wallet', outcome: 'success', amount: parsed.value });
      status = 'credited';
      reason = null;
      await db.updateTable('wallet_allocations').set({ state: 'credited' }).where('id', '=', match.id).where('state', '=', 'open').execute();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      reason = err.code;
      if (err.code === 'intent_not_payable') {
        await db.updateTable('wallet_allocations').set({ state: 'released' }).where('id', '=', match.id).where('state', '=', 'open').execute();
      }
    }
  }
  const id = newId('wallet_deposit');
  await db
    .insertInto('wallet_deposits')
    .values({
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
    })
    .execute();
  return { id, status, reason, payment_intent: match?.payment_intent_id ?? null };
}
