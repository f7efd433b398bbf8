// The payments list: the search box and filters read by the payment-search service, a page of 25 (keyset
// paging), and the CSV of exactly the filtered list (every page of it, up to EXPORT_MAX_ROWS rows).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isIdOf } from '../../../shared/ids.js';
import type { PaymentIntent } from '../../payment-intents/index.js';
import { filteredCsv, filteredPage, readFilter, type FilterQuery } from '../payment-search.service.js';
import { paymentsPage } from '../pages/payments-page.js';
import { CONSOLE_ROUTE, type ConsoleKit } from './shared.routes.js';

async function payments(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, '/console/payments');
  if (!at) return reply;
  const query = request.query as FilterQuery & { after?: string };
  const read = readFilter(query, at.ctx.timeZone!);
  // Overdue payments become expired first, so that a status filter sees them as they are.
  await kit.deps.intents.expireOverdue({ merchantId: at.scope.merchantId, environment: at.scope.environment });
  let found: PaymentIntent[] = [];
  let next: string | undefined;
  if (!read.error) {
    const after = typeof query.after === 'string' && isIdOf('payment_intent', query.after) ? query.after : undefined;
    const page = await filteredPage(kit.deps.db, at.scope, read.filter, after, 25);
    found = await Promise.all(page.ids.map((id) => kit.deps.intents.get(at.scope, id)));
    next = page.next;
  }
  const html = paymentsPage(at.ctx, {
    payments: found,
    shown: read.shown,
    ...(next ? { next } : {}),
    ...(read.error ? { error: read.error } : {}),
  });
  return kit.send(reply, read.error ? 400 : 200, html);
}

async function exportCsv(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, '/console/payments');
  if (!at) return reply;
  const read = readFilter(request.query as FilterQuery, at.ctx.timeZone!);
  if (read.error) return payments(kit, request, reply);
  await kit.deps.intents.expireOverdue({ merchantId: at.scope.merchantId, environment: at.scope.environment });
  await kit.audit(session, request, 'payments.exported', null, { environment: at.scope.environment, filter: read.shown });
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="payments_${at.scope.environment}.csv"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(filteredCsv(kit.deps.db, at.scope, read.filter));
}

export function registerPaymentListRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console/payments', CONSOLE_ROUTE, (request, reply) => payments(kit, request, reply));
  app.get('/console/payments/export.csv', CONSOLE_ROUTE, (request, reply) => exportCsv(kit, request, reply));
}
