// Payment link pages. Opening the url (GET or HEAD, a link preview or a crawler included) shows the link
// and mints nothing; sending its form (the customer acting, with the amount when the link has none)
// mints the visit's intent once and sends the customer to its checkout. Each client address mints at most
// LINK_MINTS_PER_MINUTE intents a minute across every link; past it the form answers a 429 page.
import type { FastifyReply, FastifyRequest } from 'fastify';
import ipaddr from 'ipaddr.js';
import { Type } from 'typebox';
import { AppError } from '../../../shared/errors.js';
import { findMerchantName } from '../../merchants/index.js';
import type { OpenLinkResult } from '../../payment-links/index.js';
import { linkPage, messagePage } from '../checkout-page.js';
import { IntentParams, PUBLIC_ROUTE, securityHeaders, type CheckoutApp, type CheckoutKit, type RequestOf } from './shared.routes.js';

const LinkQuery = Type.Object({ amount: Type.Optional(Type.String({ maxLength: 200 })) });
const LinkForm = Type.Object({
  visit: Type.Optional(Type.String({ maxLength: 200 })),
  amount: Type.Optional(Type.String({ maxLength: 200 })),
});

const OpenSchema = { hide: true, params: IntentParams, querystring: LinkQuery };
const SendSchema = { hide: true, params: IntentParams, body: LinkForm };

function html(reply: FastifyReply, code: number, page: string) {
  return reply.code(code).type('text/html; charset=utf-8').send(page);
}

async function findLink(kit: CheckoutKit, request: FastifyRequest, id: string) {
  return /^pl_[0-9A-Za-z]{1,64}$/.test(id) ? kit.deps.links.findPublic(request.environment, id) : undefined;
}

function linkNotFound(kit: CheckoutKit, request: FastifyRequest): string {
  return messagePage(
    kit.assets,
    request.environment === 'test',
    'Payment link not found',
    'This payment link is not valid. Check the address, or ask the merchant for a new one.',
  );
}

/** The link's page for one result of opening or sending it. */
async function linkAnswer(
  kit: CheckoutKit,
  reply: FastifyReply,
  opened: OpenLinkResult,
  token: string,
  value: string,
  /** Of a page that shows an error: 400 unless said (503 when prices are stale). */
  errorStatus = 400,
): Promise<FastifyReply> {
  const link = opened.link;
  const sandbox = link.environment === 'test';
  const merchantName = (await findMerchantName(kit.deps.db, link.merchant_id)) ?? '';
  switch (opened.kind) {
    case 'inactive': {
      const [title, text] =
        opened.status === 'expired'
          ? ['This payment link has expired', `It no longer takes payments. Ask ${merchantName} for a new link.`]
          : opened.status === 'completed'
            ? ['This payment link is complete', `${merchantName} has received all the payments this link accepts, so it takes no more.`]
            : ['This payment link is not active', `${merchantName} has paused this link, so it takes no payments now.`];
      return html(reply, 410, messagePage(kit.assets, sandbox, title, text));
    }
    case 'page':
      return html(
        reply,
        opened.error ? errorStatus : 200,
        linkPage(link, merchantName, { assets: kit.assets, error: opened.error, value, action: `/pay/${link.id}`, token }),
      );
    case 'minted':
      return reply.code(303).header('location', `/checkout/${opened.intentId}`).send();
    case 'limited':
      reply.header('retry-after', String(opened.retryAfterS));
      return html(
        reply,
        429,
        messagePage(
          kit.assets,
          sandbox,
          'Too many payments started',
          `Many payments were started from your network in the last minute, so nothing was charged. Try again in ${opened.retryAfterS} seconds.`,
        ),
      );
  }
}

/**
 * Whose budget a mint spends: the client address as the API sees it (the socket's, or X-Forwarded-For from
 * a trusted proxy), an IPv4-mapped IPv6 address as its IPv4 form, and an IPv6 address by its /64, the
 * block one subscriber is given.
 */
function mintClient(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

async function openLink(kit: CheckoutKit, request: RequestOf<typeof OpenSchema>, reply: FastifyReply) {
  securityHeaders(reply);
  const link = await findLink(kit, request, request.params.id);
  if (!link) return html(reply, 404, linkNotFound(kit, request));
  const token = kit.tokens.forVisit(request, reply, link.id, kit.secure(link.environment));
  // `?amount=` fills in the form (a merchant may link to a suggested amount); it never mints.
  return linkAnswer(kit, reply, await kit.deps.links.open(link), token, request.query.amount ?? '');
}

async function sendLinkForm(kit: CheckoutKit, request: RequestOf<typeof SendSchema>, reply: FastifyReply) {
  securityHeaders(reply);
  const link = await findLink(kit, request, request.params.id);
  if (!link) return html(reply, 404, linkNotFound(kit, request));
  let visit: string;
  try {
    visit = kit.tokens.checkVisit(request, link.id, request.body.visit);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const fresh = kit.tokens.forVisit(request, reply, link.id, kit.secure(link.environment));
    const page = await kit.deps.links.open(link);
    if (page.kind !== 'page') return linkAnswer(kit, reply, page, fresh, '');
    return linkAnswer(kit, reply, { ...page, error: 'This page had gone stale, so nothing was paid. Try again.' }, fresh, '');
  }
  const amount = request.body.amount;
  let minted: OpenLinkResult;
  try {
    minted = await kit.deps.links.mint(link, visit, amount, mintClient(request.ip));
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== 'rates_unavailable') throw err;
    // The customer sees the form again, told that nothing happened; the merchant's log says why.
    request.log.warn({ payment_link: link.id, reason: err.message }, 'payment link minted nothing: rates_unavailable');
    const page = {
      kind: 'page' as const,
      link,
      error: 'Prices are being updated, so nothing was charged. Try again in a few minutes.',
    };
    return linkAnswer(kit, reply, page, request.body.visit!, amount ?? '', 503);
  }
  return linkAnswer(kit, reply, minted, request.body.visit!, amount ?? '');
}

export function registerLinkRoutes(app: CheckoutApp, kit: CheckoutKit): void {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/pay/:id',
    ...PUBLIC_ROUTE,
    schema: OpenSchema,
    handler: (request, reply) => openLink(kit, request, reply),
  });
  app.post('/pay/:id', { ...PUBLIC_ROUTE, schema: SendSchema, bodyLimit: 4096 }, (request, reply) => sendLinkForm(kit, request, reply));
}
