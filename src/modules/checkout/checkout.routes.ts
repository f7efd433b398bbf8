// The hosted checkout at every intent's checkout_url. For now a server-rendered summary of the intent;
// the payment flows of each method are built on the rail interface.
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../app.js';
import { isoTime } from '../../shared/clock.js';
import { merchantClock } from '../sandbox/sandbox-clock.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style>
body{font:16px/1.5 system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.amount{font-size:2rem;font-weight:600}.muted{color:#555}.status{padding:.25rem .5rem;border-radius:4px;background:#eef}
</style></head><body><main>${body}</main></body></html>`;
}

export async function checkoutRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { db, clock } = opts.deps;
  app.get<{ Params: { id: string } }>(
    '/checkout/:id',
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      reply.header('content-security-policy', CSP).header('cache-control', 'no-store').header('x-frame-options', 'DENY');
      const row = await db
        .selectFrom('payment_intents as pi')
        .innerJoin('merchants as m', 'm.id', 'pi.merchant_id')
        .select(['pi.id', 'pi.status', 'pi.amount', 'pi.currency', 'pi.pay_amount', 'pi.settlement_currency', 'pi.description', 'pi.expires_at', 'pi.merchant_id', 'm.name'])
        .where('pi.id', '=', request.params.id)
        .where('pi.environment', '=', request.environment)
        .executeTakeFirst();
      if (!row) {
        return reply.code(404).type('text/html; charset=utf-8').send(page('Payment not found', '<h1>Payment not found</h1><p>This checkout link is not valid.</p>'));
      }
      const now = (await merchantClock(db, clock, row.merchant_id, request.environment)).nowMs();
      const status = row.status === 'awaiting_payment' && row.expires_at <= now ? 'expired' : row.status;
      return reply.type('text/html; charset=utf-8').send(
        page(
          `Pay ${row.name}`,
          `<p class="muted">${request.environment === 'test' ? 'Sandbox · no real money' : ''}</p>
<h1>${esc(row.name)}</h1>${row.description ? `<p>${esc(row.description)}</p>` : ''}
<p class="amount">${esc(row.amount)} ${esc(row.currency)}</p>
<p class="muted">${esc(row.pay_amount)} ${esc(row.settlement_currency)}</p>
<p>Status: <span class="status" id="status">${esc(status.replace('_', ' '))}</span></p>
<p class="muted">Expires <time datetime="${isoTime(row.expires_at)}">${isoTime(row.expires_at)}</time></p>`,
        ),
      );
    },
  );
}
