// The wallet's M-Pesa top-up pages (live only, while the M-Pesa rail is configured): the quote form posted
// from the wallet page (then a redirect to the top-up's page, which shows the locked quote and asks for the
// PIN), the PIN posted back (then a redirect to the page, which shows the prompt sent or the refusal), and
// the page itself. Forms carry the session's CSRF token like every wallet form (the wallet's own helpers,
// given by wallet.routes.ts, check it).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf } from '../../http/forms.js';
import { ConsoleError } from '../console/index.js';
import type { PayerSession } from './payer-auth.service.js';
import type { PayerMpesaTopups } from './mpesa-topups.service.js';
import { messagePage, type WalletContext } from './pages/layout.js';
import { mpesaTopupPage } from './pages/mpesa-topup-pages.js';

/** What these pages use of the wallet's routes (wallet.routes.ts). */
export interface WalletPages {
  ctx(request: FastifyRequest, session: PayerSession | null): WalletContext;
  send(reply: FastifyReply, status: number, html: string): unknown;
  /** The signed-in session with a new form token, or null. */
  session(request: FastifyRequest, reply: FastifyReply): Promise<PayerSession | null>;
  /** The session of a posted form whose token is valid, or null after answering (sign-in or 403). */
  acting(request: FastifyRequest, reply: FastifyReply): Promise<PayerSession | null>;
  /** The wallet page with an error. */
  home(request: FastifyRequest, reply: FastifyReply, session: PayerSession, extra: { status: number; error: string }): Promise<unknown>;
}

const ROUTE = { config: { access: 'public' as const }, schema: { hide: true } };
const field = (form: Record<string, string>, name: string) => (typeof form[name] === 'string' ? form[name] : '');
const pageOf = (id: string) => `/wallet/topups/mpesa/${id}`;
const see = (reply: FastifyReply, location: string) =>
  reply.code(303).header('location', location).header('cache-control', 'no-store').send();

export function mpesaTopupRoutes(app: FastifyInstance, topups: PayerMpesaTopups, pages: WalletPages): void {
  // Daraja's rail is live: the sandbox wallet has no M-Pesa top-up.
  const absent = (request: FastifyRequest, reply: FastifyReply) => pages.send(reply, 404, messagePage(pages.ctx(request, null), 'absent'));
  const show = async (request: FastifyRequest, reply: FastifyReply, session: PayerSession, id: string, error?: ConsoleError) => {
    let html: string;
    try {
      html = mpesaTopupPage({ ...pages.ctx(request, session), session }, await topups.find(session.payer.id, id), error?.message);
    } catch (err) {
      if (err instanceof ConsoleError) return absent(request, reply);
      throw err;
    }
    return pages.send(reply, error?.status ?? 200, html);
  };

  app.post('/wallet/topups/mpesa', ROUTE, async (request, reply) => {
    if (request.environment !== 'live') return absent(request, reply);
    const session = await pages.acting(request, reply);
    if (!session) return reply;
    const form = formOf(request);
    try {
      const quote = await topups.quote(session.payer, {
        asset: field(form, 'asset'),
        kes: field(form, 'kes'),
        phone: field(form, 'phone'),
      });
      return see(reply, pageOf(quote.id));
    } catch (err) {
      if (!(err instanceof ConsoleError)) throw err;
      return pages.home(request, reply, session, { status: err.status, error: err.message });
    }
  });

  app.get<{ Params: { id: string } }>('/wallet/topups/mpesa/:id', ROUTE, async (request, reply) => {
    if (request.environment !== 'live') return absent(request, reply);
    const session = await pages.session(request, reply);
    if (!session) return see(reply, '/wallet/login');
    return show(request, reply, session, request.params.id);
  });

  app.post<{ Params: { id: string } }>('/wallet/topups/mpesa/:id/confirm', ROUTE, async (request, reply) => {
    if (request.environment !== 'live') return absent(request, reply);
    const session = await pages.acting(request, reply);
    if (!session) return reply;
    try {
      await topups.confirm(session.payer, request.params.id, field(formOf(request), 'pin'), request.ip);
    } catch (err) {
      if (!(err instanceof ConsoleError)) throw err;
      return show(request, reply, session, request.params.id, err);
    }
    return see(reply, pageOf(request.params.id));
  });
}
