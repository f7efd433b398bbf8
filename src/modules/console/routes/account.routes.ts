// The account: business verification (submitted by the owner), the audit log (owners), and the user's own
// security: password, two-step sign-in (TOTP) and the merchant's transaction PIN (owners).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../shared/errors.js';
import { checkVerification, submitVerification, verificationOf } from '../../merchants/index.js';
import { ConsoleError, type ConsoleSession } from '../console-auth.service.js';
import { accountPage, type AccountPageOptions } from '../pages/account-page.js';
import { auditPage } from '../pages/audit-page.js';
import { verificationPage } from '../pages/verification-page.js';
import { CONSOLE_ROUTE, qrCode, type ConsoleKit, type Form } from './shared.routes.js';

async function showVerification(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  const v = await verificationOf(kit.deps.db, session.user.merchantId);
  const notice = (request.query as { submitted?: string }).submitted ? 'Submitted: your business is in review.' : undefined;
  return kit.send(reply, 200, verificationPage(await kit.context(request, session, '/console/verification'), v as never, { notice }));
}

async function submitBusiness(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role !== 'owner') return kit.forbidden(request, reply, a.session);
  const merchantId = a.session.user.merchantId;
  try {
    const details = checkVerification(a.form);
    await submitVerification(kit.deps.db, merchantId, details, kit.deps.clocks.base.nowMs());
    await kit.audit(a.session, request, 'verification.submitted', merchantId, { legal_name: details.legal_name });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const v = await verificationOf(kit.deps.db, merchantId);
    return kit.send(
      reply,
      400,
      verificationPage(await kit.context(request, a.session, '/console/verification'), v as never, {
        error: { message: err.message, param: err.param },
        values: a.form,
      }),
    );
  }
  return reply.code(303).header('location', '/console/verification?submitted=1').send();
}

async function showAudit(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  if (session.user.role !== 'owner') return kit.forbidden(request, reply, session);
  const rows = await kit.deps.console.auditLog(session.user.merchantId);
  return kit.send(reply, 200, auditPage(await kit.context(request, session, '/console/audit'), rows));
}

const DONE_NOTICES: Record<string, string> = {
  password: 'Your password is changed.',
  totp_on: 'Two-step sign-in is on. Keep your recovery codes somewhere safe.',
  totp_off: 'Two-step sign-in is off.',
  pin: 'The transaction PIN is set.',
};

/** The account page as it is now (whether a PIN is set, recovery codes left), with what the action adds. */
async function accountView(kit: ConsoleKit, request: FastifyRequest, session: ConsoleSession, opts: AccountPageOptions = {}) {
  const [hasPin, recoveryLeft] = await Promise.all([
    kit.deps.console.hasPin(session.user.merchantId),
    kit.team.recoveryCodesLeft(session.user.id),
  ]);
  return accountPage(await kit.context(request, session, '/console/account'), { hasPin, recoveryLeft, ...opts });
}

async function showAccount(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  return kit.send(reply, 200, await accountView(kit, request, session));
}

/** Answers the `done` of the account page's notice, or a page to show instead (the TOTP setup). */
type AccountAction = (kit: ConsoleKit, session: ConsoleSession, form: Form, request: FastifyRequest) => Promise<string | { page: string }>;

/** An account form: runs `act`, then back to the account page with a notice, or the page with the error. */
async function runAccountAction(kit: ConsoleKit, act: AccountAction, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  try {
    const done = await act(kit, a.session, a.form, request);
    if (typeof done !== 'string') return kit.send(reply, 200, done.page);
    return kit.done(request, reply, '/console/account', DONE_NOTICES[done] ?? 'Done.');
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return kit.send(reply, err.status, await accountView(kit, request, a.session, { error: err.message }));
  }
}

const changePassword: AccountAction = async (kit, session, form, request) => {
  await kit.deps.console.changePassword(session, form['current'] ?? '', form['next'] ?? '', request.ip);
  return 'password';
};

const startTotp: AccountAction = async (kit, session, _form, request) => {
  const setup = await kit.deps.console.startTotp(session);
  const qr = await (await qrCode()).toDataURL(setup.uri, { margin: 1, width: 180 });
  return { page: await accountView(kit, request, session, { totpSetup: { ...setup, qr } }) };
};

const confirmTotp: AccountAction = async (kit, session, form, request) => {
  const codes = await kit.deps.console.confirmTotp(session, form['code'] ?? '', request.ip);
  const on = { ...session, user: { ...session.user, totp: true } };
  return { page: await accountView(kit, request, on, { notice: DONE_NOTICES['totp_on'], recoveryCodes: codes }) };
};

const newRecoveryCodes: AccountAction = async (kit, session, _form, request) => {
  if (!session.user.totp) throw new ConsoleError(400, 'Turn on two-step sign-in first: recovery codes stand in for its codes.');
  const codes = await kit.team.newRecoveryCodes(session, request.ip);
  return {
    page: await accountView(kit, request, session, { notice: 'New recovery codes: the old ones no longer work.', recoveryCodes: codes }),
  };
};

const setPin: AccountAction = async (kit, session, form, request) => {
  await kit.deps.console.setPin(session, form['password'] ?? '', (form['pin'] ?? '').trim(), request.ip);
  return 'pin';
};

const disableTotp: AccountAction = async (kit, session, form, request) => {
  await kit.deps.console.disableTotp(session, form['password'] ?? '', request.ip);
  return 'totp_off';
};

export function registerAccountRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console/verification', CONSOLE_ROUTE, (request, reply) => showVerification(kit, request, reply));
  app.post('/console/verification', CONSOLE_ROUTE, (request, reply) => submitBusiness(kit, request, reply));
  app.get('/console/audit', CONSOLE_ROUTE, (request, reply) => showAudit(kit, request, reply));
  app.get('/console/account', CONSOLE_ROUTE, (request, reply) => showAccount(kit, request, reply));
  const action = (path: string, act: AccountAction) =>
    app.post(path, CONSOLE_ROUTE, (request, reply) => runAccountAction(kit, act, request, reply));
  action('/console/account/password', changePassword);
  action('/console/account/totp/start', startTotp);
  action('/console/account/totp/confirm', confirmTotp);
  action('/console/account/pin', setPin);
  action('/console/account/totp/disable', disableTotp);
  action('/console/account/recovery-codes', newRecoveryCodes);
}
