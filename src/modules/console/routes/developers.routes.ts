// Developers: API keys and webhook endpoints of one environment, through the same services as the CLI and
// the API. Developers and owners act; viewers read. A new key or signing secret is shown once, on the page
// answering the form; every other action goes back to the page with a notice.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/errors.js';
import type { MerchantScope } from '../../../shared/scope.js';
import { listKeys, revokeKey, rotateKey, SCOPES } from '../../keys/index.js';
import { createKey } from '../../merchants/index.js';
import type { ConsoleSession } from '../console-auth.service.js';
import { developersPage, endpointDeliveriesPage } from '../pages/developers-page.js';
import { messagePage } from '../pages/layout.js';
import { CONSOLE_ROUTE, type ConsoleKit, type Form } from './shared.routes.js';

/** A secret shown once on the page, with a notice. */
interface Shown {
  shown: { label: string; secret: string };
  notice: string;
}

/** What a developers action gets: the session, its form, the environment's scope, the path's id, the request. */
interface ActionInput {
  session: ConsoleSession;
  form: Form;
  scope: MerchantScope;
  id: string | undefined;
  request: FastifyRequest;
}

/** Answers the notice to go back to the page with, or a secret to show once. */
type DeveloperAction = (kit: ConsoleKit, input: ActionInput) => Promise<string | Shown>;

async function developers(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  session: ConsoleSession,
  extra: { shown?: Shown['shown']; notice?: string; error?: string; status?: number } = {},
) {
  const at = await kit.envScope(request, reply, session, '/console/developers');
  if (!at) return reply;
  const keys = (await listKeys(kit.deps.db, session.user.merchantId, kit.deps.clocks.base.nowMs())).filter(
    (k) => k.environment === at.scope.environment,
  );
  const endpoints = (await kit.deps.webhooks.listEndpoints(at.scope)).data;
  return kit.send(
    reply,
    extra.status ?? 200,
    developersPage(at.ctx, { keys, endpoints, scopes: SCOPES, canAct: session.user.role !== 'viewer', ...extra }),
  );
}

async function showDevelopers(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  return developers(kit, request, reply, session);
}

/** An endpoint's delivery log: its latest deliveries, each with its event, status and last answer. */
async function endpointLog(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const id = (request.params as { id: string }).id;
  const at = await kit.envScope(request, reply, session, `/console/developers/webhooks/${id}`);
  if (!at) return reply;
  let log;
  try {
    log = await kit.deps.webhooks.endpointDeliveries(at.scope, id);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return kit.send(reply, 404, messagePage(at.ctx, 'No such endpoint', err.message));
  }
  return kit.send(reply, 200, endpointDeliveriesPage(at.ctx, log));
}

/** A developers action: role checked, the live side open, errors shown on the page, then back to it. */
async function runAction(kit: ConsoleKit, act: DeveloperAction, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role === 'viewer') return kit.forbidden(request, reply, a.session);
  const at = await kit.actingScope(request, reply, a.session, '/console/developers');
  if (!at) return reply;
  const { scope } = at;
  try {
    const done = await act(kit, { ...a, scope, id: (request.params as { id?: string }).id, request });
    if (typeof done !== 'string') return developers(kit, request, reply, a.session, done);
    return kit.done(request, reply, `/console/developers?env=${scope.environment}`, done);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return developers(kit, request, reply, a.session, { error: err.message, status: err.status });
  }
}

/** The merchant's own key, or 404 as if it did not exist. */
async function ownKey(kit: ConsoleKit, merchantId: string, id: string | undefined) {
  const key = (await listKeys(kit.deps.db, merchantId, kit.deps.clocks.base.nowMs())).find((k) => k.id === id);
  if (!key) throw new AppError('resource_missing', 'No such key.', { param: 'id' });
  return key;
}

const commaList = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

const createApiKey: DeveloperAction = async (kit, { session, form, scope, request }) => {
  const type = form['type'];
  if (type !== 'secret' && type !== 'restricted' && type !== 'publishable')
    throw new AppError('parameter_invalid', 'Choose a key type.', { param: 'type' });
  const scopes = (form['scope'] ?? '').split(',').filter(Boolean);
  const ips = commaList(form['allowed_ips']);
  const issued = await createKey(kit.deps.db, kit.deps.clocks.base, {
    merchantId: session.user.merchantId,
    environment: scope.environment,
    type,
    ...(type === 'restricted' ? { scopes } : {}),
    ...(ips.length > 0 ? { allowedIps: ips } : {}),
  });
  await kit.audit(session, request, 'key.created', issued.id, { type, environment: scope.environment, scopes: issued.scopes });
  return { shown: { label: `Your new ${type} key.`, secret: issued.key }, notice: 'Key created.' };
};

/** A revoke or delete needs its confirmation box ticked: without it nothing changes. */
function confirmed(form: Form, what: string): void {
  if (form['confirm'] !== 'yes')
    throw new AppError('parameter_invalid', `Tick the box to confirm: ${what}. Nothing was changed.`, { param: 'confirm' });
}

const revokeApiKey: DeveloperAction = async (kit, { session, form, id, request }) => {
  const key = await ownKey(kit, session.user.merchantId, id);
  confirmed(form, `revoke the key ending ${key.hint.slice(-4)}`);
  await revokeKey(kit.deps.db, kit.deps.clocks.base, key.id);
  await kit.audit(session, request, 'key.revoked', key.id, null);
  return 'Key revoked.';
};

const rotateApiKey: DeveloperAction = async (kit, { session, form, id, request }) => {
  const key = await ownKey(kit, session.user.merchantId, id);
  const hours = /^[0-9]{1,3}$/.test((form['hours'] ?? '').trim()) ? Number(form['hours']) : NaN;
  const out = await rotateKey(kit.deps.db, kit.deps.clocks.base, key.id, hours);
  await kit.audit(session, request, 'key.rotated', key.id, { new_key: out.new_key.id, hours });
  return {
    shown: { label: `The replacement key (the old one works until ${out.old_key.expires_at}).`, secret: out.new_key.key },
    notice: 'Key rotated.',
  };
};

const createEndpoint: DeveloperAction = async (kit, { session, form, scope, request }) => {
  const events = commaList(form['events']);
  const created = await kit.deps.webhooks.createEndpoint(scope, { url: (form['url'] ?? '').trim(), events });
  await kit.audit(session, request, 'webhook_endpoint.created', created.id, { url: created.url });
  return { shown: { label: `The signing secret of ${created.url}.`, secret: created.secret }, notice: 'Endpoint added.' };
};

const ENDPOINT_ACTIONS = {
  pause: { run: (kit: ConsoleKit, scope: MerchantScope, id: string) => kit.deps.webhooks.pause(scope, id), done: 'paused' },
  resume: { run: (kit: ConsoleKit, scope: MerchantScope, id: string) => kit.deps.webhooks.resume(scope, id), done: 'resumed' },
  delete: { run: (kit: ConsoleKit, scope: MerchantScope, id: string) => kit.deps.webhooks.deleteEndpoint(scope, id), done: 'deleted' },
} as const;

/** Pauses, resumes or deletes an endpoint. */
const endpointAction =
  (action: keyof typeof ENDPOINT_ACTIONS): DeveloperAction =>
  async (kit, { session, form, scope, id = '', request }) => {
    const { run, done } = ENDPOINT_ACTIONS[action];
    if (action === 'delete') confirmed(form, 'delete the endpoint');
    await run(kit, scope, id);
    await kit.audit(session, request, `webhook_endpoint.${done}`, id, null);
    return `Endpoint ${done}.`;
  };

const rotateEndpointSecret: DeveloperAction = async (kit, { session, scope, id = '', request }) => {
  const rotated = await kit.deps.webhooks.rotateSecret(scope, id);
  await kit.audit(session, request, 'webhook_endpoint.secret_rotated', rotated.id, null);
  return { shown: { label: `The new signing secret of ${rotated.url}, in use now.`, secret: rotated.secret }, notice: 'Secret rotated.' };
};

export function registerDeveloperRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console/developers', CONSOLE_ROUTE, (request, reply) => showDevelopers(kit, request, reply));
  app.get('/console/developers/webhooks/:id', CONSOLE_ROUTE, (request, reply) => endpointLog(kit, request, reply));
  const action = (path: string, act: DeveloperAction) =>
    app.post(path, CONSOLE_ROUTE, (request, reply) => runAction(kit, act, request, reply));
  action('/console/developers/keys', createApiKey);
  action('/console/developers/keys/:id/revoke', revokeApiKey);
  action('/console/developers/keys/:id/rotate', rotateApiKey);
  action('/console/developers/webhooks', createEndpoint);
  for (const name of ['pause', 'resume', 'delete'] as const) action(`/console/developers/webhooks/:id/${name}`, endpointAction(name));
  action('/console/developers/webhooks/:id/rotate', rotateEndpointSecret);
}
