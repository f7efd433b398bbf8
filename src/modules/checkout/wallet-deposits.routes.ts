// GET /v1/wallet-deposits: the on-chain deposits that reached the merchant's addresses, credited to an
// intent or kept as unmatched (a wrong amount, asset or network, or a payment that was refused).
import { engineOf } from '../../db/dialect.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppDeps } from '../../app.js';
import type { WalletDepositRow } from '../../db/schema-checkout.js';
import { withResponseMeta } from '../../http/context.js';
import { errorResponses } from '../../http/openapi.js';
import { keysetPage, listQuerySchema, toPage, unknownCursor } from '../../http/pagination.js';
import { ListOf, StringEnum } from '../../http/schemas.js';
import { requireAuth } from '../../http/scope.js';
import { isoTime } from '../../shared/clock.js';

const WalletDepositRecord = Type.Object(
  {
    id: Type.String({ description: 'Identifier, prefix `wd_`' }),
    object: Type.Literal('wallet_deposit'),
    status: StringEnum(['credited', 'unmatched'] as const),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Why an unmatched deposit was not credited: no_matching_payment, MERCHANT_LIMIT_EXCEEDED, payment_link_completed or intent_not_payable',
    }),
    network: Type.String(),
    asset: Type.String(),
    address: Type.String(),
    amount: Type.String(),
    tx_hash: Type.String(),
    payment_intent: Type.Union([Type.String(), Type.Null()], { description: 'The intent whose exact amount it matched, if any' }),
    created_at: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
  },
  { title: 'WalletDeposit' },
);

function view(r: WalletDepositRow) {
  return {
    id: r.id,
    object: 'wallet_deposit' as const,
    status: r.status,
    reason: r.reason,
    network: r.network,
    asset: r.asset,
    address: r.address,
    amount: r.amount,
    tx_hash: r.tx_hash,
    payment_intent: r.payment_intent_id,
    created_at: isoTime(r.created_at),
    livemode: r.environment === 'live',
  };
}

export const walletDepositRoutes: FastifyPluginAsyncTypebox<{ deps: AppDeps }> = async (app, { deps }) => {
  app.get(
    '/wallet-deposits',
    {
      config: { scopes: ['payments:read'] },
      schema: {
        summary: 'List external-wallet deposits',
        description: 'Deposits to the merchant\'s wallet addresses, newest first. `status=unmatched` lists the ones kept aside: not the exact amount, asset and network of an open payment, or refused.',
        tags: ['Payment intents'],
        querystring: listQuerySchema(20, 100, { status: Type.Optional(StringEnum(['credited', 'unmatched'] as const)) }),
        response: { 200: ListOf(WalletDepositRecord, { title: 'WalletDepositList' }), ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const scope = requireAuth(request);
      const q = request.query;
      const base = () =>
        deps.db.selectFrom('wallet_deposits').selectAll().where('merchant_id', '=', scope.merchantId).where('environment', '=', scope.environment);
      let cursor = null;
      if (q.starting_after !== undefined) {
        cursor = (await base().where('id', '=', q.starting_after).executeTakeFirst()) ?? null;
        if (!cursor) throw unknownCursor(q.starting_after);
      }
      let list = base();
      if (q.status) list = list.where('status', '=', q.status);
      const rows = await keysetPage(engineOf(deps.db), list, cursor, q.limit).execute();
      return withResponseMeta(request, toPage(rows, q.limit, view));
    },
  );
};
