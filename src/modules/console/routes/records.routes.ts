// The merchant's records, read through the same services as the API, one list page each, newest first:
// refunds, settlements, customers, payment links (owners create them here), events (resent here), and the
// CSV reports of a date range.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/errors.js';
import type { MerchantScope } from '../../../shared/scope.js';
import type { Customer } from '../../customers/index.js';
import type { Refund } from '../../refunds/index.js';
import { PAYMENTS_REPORT, SETTLEMENTS_REPORT } from '../../reports/index.js';
import { listSettlements, type Settlement } from '../../settlements/index.js';
import type { WebhookEvent } from '../../webhooks/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { messagePage, type Env, type Html } from '../pages/layout.js';
import { listPage, type Column } from '../pages/list-page.js';
import {
  customerColumns,
  eventColumns,
  linkColumns,
  linkForm,
  refundColumns,
  reportsForm,
  settlementColumns,
  type LinkWithQr,
} from '../pages/records-pages.js';
import { CONSOLE_ROUTE, qrCode, type ConsoleKit } from './shared.routes.js';

/** One list page: where it lives, what it shows, the id prefix of its `after` cursor, how it loads a page. */
interface ListSpec<T extends { id: string }> {
  path: string;
  title: string;
  empty: string;
  prefix: string;
  load: (kit: ConsoleKit, scope: MerchantScope, after: string | undefined) => Promise<{ data: T[]; has_more: boolean }>;
  columns: (env: Env, session: ConsoleSession) => Column<T>[];
  /** HTML above the list (a form creating a record). */
  before?: (session: ConsoleSession, env: Env) => Html;
}

const afterOf = (request: FastifyRequest, prefix: string) => {
  const after = (request.query as { after?: string }).after;
  return after && new RegExp(`^${prefix}_[0-9A-Za-z]{1,64}$`).test(after) ? after : undefined;
};

async function showList<T extends { id: string }>(kit: ConsoleKit, spec: ListSpec<T>, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, spec.path);
  if (!at) return reply;
  const page = await spec.load(kit, at.scope, afterOf(request, spec.prefix));
  const env = at.scope.environment;
  return kit.send(
    reply,
    200,
    listPage(at.ctx, spec.title, {
      rows: page.data,
      columns: spec.columns(env, session),
      empty: spec.empty,
      next: page.has_more ? page.data.at(-1)?.id : undefined,
      ...(spec.before ? { before: spec.before(session, env) } : {}),
    }),
  );
}

const REFUNDS: ListSpec<Refund> = {
  path: '/console/refunds',
  title: 'Refunds',
  empty: 'No refunds in this environment.',
  prefix: 're',
  load: (kit, scope, after) => kit.deps.refunds.list(scope, { limit: 25, startingAfter: after }),
  columns: refundColumns,
};

const SETTLEMENTS: ListSpec<Settlement> = {
  path: '/console/settlements',
  title: 'Settlements',
  empty: 'No settlements in this environment.',
  prefix: 'stl',
  load: (kit, scope, after) => listSettlements(kit.deps.db, scope, { limit: 25, startingAfter: after }),
  columns: settlementColumns,
};

const CUSTOMERS: ListSpec<Customer> = {
  path: '/console/customers',
  title: 'Customers',
  empty: 'No customers in this environment.',
  prefix: 'cus',
  load: (kit, scope, after) => kit.deps.customers.list(scope, { limit: 25, startingAfter: after }),
  columns: customerColumns,
};

const LINKS: ListSpec<LinkWithQr> = {
  path: '/console/links',
  title: 'Payment links',
  empty: 'No payment links in this environment.',
  prefix: 'pl',
  load: async (kit, scope, after) => {
    const page = await kit.deps.links.list(scope, { limit: 25, startingAfter: after });
    // Each link's QR code, for printing or a screen at the till.
    const withQr = await Promise.all(
      page.data.map(async (l) => ({ ...l, qr: l.url ? await (await qrCode()).toDataURL(l.url, { margin: 1, width: 120 }) : '' })),
    );
    return { ...page, data: withQr };
  },
  columns: linkColumns,
  before: linkForm,
};

const EVENTS: ListSpec<WebhookEvent> = {
  path: '/console/events',
  title: 'Events',
  empty: 'No events in this environment.',
  prefix: 'evt',
  load: (kit, scope, after) => kit.deps.webhooks.listEvents(scope, { limit: 25, startingAfter: after }),
  columns: eventColumns,
};

async function createLink(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role !== 'owner') return kit.forbidden(request, reply, a.session);
  const at = await kit.actingScope(request, reply, a.session, '/console/links');
  if (!at) return reply;
  const { ctx, scope } = at;
  try {
    const amount = (a.form['amount'] ?? '').trim();
    const link = await kit.deps.links.create(scope, {
      title: a.form['title'] ?? '',
      currency: (a.form['currency'] ?? '').trim(),
      ...(amount ? { amount } : {}),
    });
    await kit.audit(a.session, request, 'payment_link.created', link.id, { url: link.url });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return kit.send(reply, err.status, messagePage(ctx, 'Payment link', err.message));
  }
  return reply.code(303).header('location', `/console/links?env=${scope.environment}`).send();
}

async function resendEvent(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role === 'viewer') return kit.forbidden(request, reply, a.session);
  const at = await kit.actingScope(request, reply, a.session, '/console/events');
  if (!at) return reply;
  const { ctx, scope } = at;
  const id = (request.params as { id: string }).id;
  try {
    const out = await kit.deps.webhooks.resendEvent(scope, id);
    await kit.audit(a.session, request, 'event.resent', id, { deliveries: out.resent });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return kit.send(reply, err.status, messagePage(ctx, 'Events', err.message));
  }
  return reply.code(303).header('location', `/console/events?env=${scope.environment}`).send();
}

/** An owner approves (sends through the payment's rail) or rejects (with a reason) a requested live refund. */
async function decideRefund(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply, decision: 'approve' | 'reject') {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role !== 'owner') return kit.forbidden(request, reply, a.session);
  const at = await kit.actingScope(request, reply, a.session, '/console/refunds');
  if (!at) return reply;
  const { ctx, scope } = at;
  const id = (request.params as { id: string }).id;
  const reason = String((request.body as { reason?: unknown } | undefined)?.reason ?? '').trim();
  try {
    const refund = await kit.deps.refunds.get(scope, id);
    if (decision === 'reject' && (reason === '' || reason.length > 500))
      throw new AppError('parameter_invalid', 'Give the reason for rejecting this refund (at most 500 characters).', { param: 'reason' });
    if (decision === 'approve') await kit.deps.refundDecisions.approve(refund.id);
    else await kit.deps.refundDecisions.reject(refund.id, reason);
    await kit.audit(
      a.session,
      request,
      `refund.${decision === 'approve' ? 'approved' : 'rejected'}`,
      id,
      decision === 'reject' ? { reason } : {},
    );
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return kit.send(reply, err.status, messagePage(ctx, 'Refunds', err.message));
  }
  return reply.code(303).header('location', `/console/refunds?env=${scope.environment}`).send();
}

async function showReports(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, '/console/reports');
  if (!at) return reply;
  const page = listPage(at.ctx, 'Reports', { rows: [], columns: [], empty: '', before: reportsForm(at.scope.environment) });
  return kit.send(reply, 200, page);
}

async function downloadReport(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const at = await kit.envScope(request, reply, session, '/console/reports');
  if (!at) return reply;
  const q = request.query as { kind?: string; from?: string; to?: string };
  const kind = q.kind === 'settlements' ? SETTLEMENTS_REPORT : PAYMENTS_REPORT;
  try {
    const csv = await kit.deps.reports.csv(
      kind as typeof PAYMENTS_REPORT,
      at.scope,
      { from: q.from || undefined, to: q.to || undefined },
      (err) => request.log.warn({ err }, 'console CSV report ended early'),
    );
    return reply
      .header('content-disposition', `attachment; filename="${csv.filename}"`)
      .header('cache-control', 'no-store')
      .type('text/csv; charset=utf-8')
      .send(csv.stream as never);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return kit.send(reply, err.status, messagePage(at.ctx, 'Reports', err.message));
  }
}

function listRoute<T extends { id: string }>(app: FastifyInstance, kit: ConsoleKit, spec: ListSpec<T>): void {
  app.get(spec.path, CONSOLE_ROUTE, (request, reply) => showList(kit, spec, request, reply));
}

export function registerRecordRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  listRoute(app, kit, REFUNDS);
  listRoute(app, kit, SETTLEMENTS);
  listRoute(app, kit, CUSTOMERS);
  listRoute(app, kit, LINKS);
  app.post('/console/links', CONSOLE_ROUTE, (request, reply) => createLink(kit, request, reply));
  listRoute(app, kit, EVENTS);
  app.post('/console/events/:id/resend', CONSOLE_ROUTE, (request, reply) => resendEvent(kit, request, reply));
  app.post('/console/refunds/:id/approve', CONSOLE_ROUTE, (request, reply) => decideRefund(kit, request, reply, 'approve'));
  app.post('/console/refunds/:id/reject', CONSOLE_ROUTE, (request, reply) => decideRefund(kit, request, reply, 'reject'));
  app.get('/console/reports', CONSOLE_ROUTE, (request, reply) => showReports(kit, request, reply));
  app.get('/console/reports/download', CONSOLE_ROUTE, (request, reply) => downloadReport(kit, request, reply));
}
