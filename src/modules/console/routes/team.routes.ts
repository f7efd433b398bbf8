// The Team page (owners only): users added with a one-time password, roles changed, users removed (never
// the last owner, and each removal confirmed), and the merchant's time zone. Other roles are not offered
// the page and get 403 if they send its forms anyway.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timeZones } from '../../../shared/display.js';
import { ConsoleError, type ConsoleSession } from '../console-auth.service.js';
import { teamPage, type TeamPageData } from '../pages/team-page.js';
import { CONSOLE_ROUTE, type ConsoleKit, type Form } from './shared.routes.js';

async function render(kit: ConsoleKit, request: FastifyRequest, session: ConsoleSession, extra: Partial<TeamPageData> = {}) {
  const ctx = await kit.context(request, session, '/console/team');
  const users = await kit.team.users(session.user.merchantId);
  return teamPage(ctx, { users, timeZone: ctx.timeZone!, zones: timeZones(), ...extra });
}

async function showTeam(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const session = await kit.signedIn(request, reply);
  if (!session) return reply;
  if (session.user.role !== 'owner') return kit.forbidden(request, reply, session);
  return kit.send(reply, 200, await render(kit, request, session));
}

/** Answers the message to go back to the page with, or the page itself (a new user's password). */
type TeamAction = (kit: ConsoleKit, session: ConsoleSession, form: Form, request: FastifyRequest) => Promise<string | { page: string }>;

async function runTeamAction(kit: ConsoleKit, act: TeamAction, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  if (a.session.user.role !== 'owner') return kit.forbidden(request, reply, a.session);
  try {
    const done = await act(kit, a.session, a.form, request);
    if (typeof done !== 'string') return kit.send(reply, 200, done.page);
    return kit.done(request, reply, '/console/team', done);
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return kit.send(reply, err.status, await render(kit, request, a.session, { error: err.message }));
  }
}

const userId = (request: FastifyRequest) => (request.params as { id: string }).id;

const addUser: TeamAction = async (kit, session, form, request) => {
  const made = await kit.team.add(session, form['email'] ?? '', form['role'] ?? '', request.ip);
  const notice = `${made.user.email} added as ${made.user.role}.`;
  return { page: await render(kit, request, session, { notice, added: { email: made.user.email, password: made.password } }) };
};

const changeRole: TeamAction = async (kit, session, form, request) => {
  const role = form['role'] ?? '';
  const user = await kit.team.setRole(session, userId(request), role, request.ip);
  return `${user.email} is now ${role}.`;
};

const removeUser: TeamAction = async (kit, session, form, request) => {
  if (form['confirm'] !== 'yes') throw new ConsoleError(400, 'Tick the box to confirm the removal: nobody was removed.');
  const user = await kit.team.remove(session, userId(request), request.ip);
  return `${user.email} was removed and signed out.`;
};

const setTimeZone: TeamAction = async (kit, session, form, request) => {
  const tz = (form['time_zone'] ?? '').trim();
  await kit.team.setTimeZone(session, tz, request.ip);
  return `Times are now shown in ${tz}.`;
};

export function registerTeamRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console/team', CONSOLE_ROUTE, (request, reply) => showTeam(kit, request, reply));
  const action = (path: string, act: TeamAction) =>
    app.post(path, CONSOLE_ROUTE, (request, reply) => runTeamAction(kit, act, request, reply));
  action('/console/team', addUser);
  action('/console/team/time-zone', setTimeZone);
  action('/console/team/:id/role', changeRole);
  action('/console/team/:id/remove', removeUser);
}
