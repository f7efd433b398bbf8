// Payouts in the console: every role sees the environment's payouts and their states; the owner asks for
// one with the transaction PIN (five wrong PINs lock it for 15 minutes, as for PIN refunds) through the
// payouts service's own rules (which write the request to the audit log); in the sandbox a developer or
// owner fails one with the test driver.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/errors.js';
import type { SettlementAsset } from '../../../shared/money.js';
import { listBalances } from '../../balances/index.js';
import { ConsoleError, type ConsoleSession } from '../console-auth.service.js';
import { payoutsPage } from '../pages/payouts-page.js';
import { CONSOLE_ROUTE, type ConsoleKit, type Form } from './shared.routes.js';

const DONE: Record<string, string> = {
  requested: 'Payout requested: the amount is held from your available balance.',
  failed: 'The sandbox payout is failed: its amount is available again.',
};

async function showPayouts(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ConsoleSession,
  extra: { error?: string; status?: number; form?: Form } = {},
) {
  const at = await kit.envScope(request, reply, session, '/console/payouts');
  if (!at) return reply;
  const q = request.query as { after?: string; done?: string };
  const after = q.after && /^po_[0-9A-Za-z]{1,64}$/.test(q.after) ? q.after : undefined;
  const [page, balances] = await Promise.all([
    kit.deps.payouts.list(at.scope, { limit: 25, ...(after ? { startingAfter: after } : {}) }),
    listBalances(kit.deps.db, at.scope),
  ]);
  const notice = q.done ? DONE[q.done] : undefined;
  const { pin: _pin, _csrf, ...typed } = extra.form ?? {};
  return kit.send(
    reply,
    extra.status ?? 200,
    payoutsPage(at.ctx, session, {
      rows: page.data,
      ...(page.has_more ? { next: page.data.at(-1)!.id } : {}),
      available: balances.map((b) => ({ asset: b.asset, available: b.available })),
      canRequest: session.user.role === 'owner',
      canFail: at.scope.environment === 'test' && session.user.role !== 'viewer',
      ...(notice ? { notice } : {}),
      ...(extra.error ? { error: extra.error } : {}),
      form: typed,
    }),
  );
}

async function payouts(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  return showPayouts(kit, request, reply, session);
}

/** The owner asks for a payout: the PIN first, then the service's rules; a refusal shows the form again. */
async function requestPayout(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role !== 'owner') return kit.forbidden(request, reply, a.session);
  const at = await kit.actingScope(request, reply, a.session, '/console/payouts');
  if (!at) return reply;
  const f = a.form;
  try {
    const asset = f['asset'] === 'USDC' ? 'USDC' : f['asset'] === 'USDT' ? 'USDT' : null;
    if (!asset) throw new AppError('parameter_invalid', 'Choose USDT or USDC.', { param: 'asset' });
    await kit.deps.console.checkPin(a.session, (f['pin'] ?? '').trim(), request.ip);
    const user = a.session.user;
    await kit.deps.payouts.create(
      at.scope,
      {
        asset: asset as SettlementAsset,
        network: f['network'] ?? '',
        address: (f['address'] ?? '').trim(),
        amount: (f['amount'] ?? '').trim(),
      },
      { actor: user.email, userId: user.id, ip: request.ip },
    );
  } catch (err) {
    if (!(err instanceof ConsoleError) && !(err instanceof AppError)) throw err;
    return showPayouts(kit, request, reply, a.session, { error: err.message, status: err.status, form: f });
  }
  return reply.code(303).header('location', `/console/payouts?env=${at.scope.environment}&done=requested`).send();
}

/** The sandbox test driver fails a sandbox payout (developers and owners). */
async function failPayout(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role === 'viewer') return kit.forbidden(request, reply, a.session);
  const id = (request.params as { id: string }).id;
  const scope = { merchantId: a.session.user.merchantId, environment: 'test' as const };
  try {
    await kit.deps.payouts.failSandboxPayout(scope, id);
    await kit.audit(a.session, request, 'sandbox.payout_failed', id, null);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return showPayouts(kit, request, reply, a.session, { error: err.message, status: err.status });
  }
  return reply.code(303).header('location', '/console/payouts?env=test&done=failed').send();
}

export function registerPayoutRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console/payouts', CONSOLE_ROUTE, (request, reply) => payouts(kit, request, reply));
  app.post('/console/payouts', CONSOLE_ROUTE, (request, reply) => requestPayout(kit, request, reply));
  app.post('/console/payouts/:id/fail', CONSOLE_ROUTE, (request, reply) => failPayout(kit, request, reply));
}
