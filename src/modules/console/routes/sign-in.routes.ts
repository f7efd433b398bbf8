// Signing in and out: the session behind an HttpOnly SameSite=Lax cookie (Secure over https, as a trusted
// proxy says), and the per-address budget of sign-in attempts, spent before any password is checked.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clearSessionCookie, formOf, setSessionCookie } from '../../../http/forms.js';
import { ConsoleError } from '../console-auth.service.js';
import { loginPage } from '../pages/sign-in-page.js';
import { CONSOLE_ROUTE, SESSION_COOKIE, type ConsoleKit } from './shared.routes.js';

async function showLogin(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  if (await kit.deps.console.session(request.cookies[SESSION_COOKIE])) return reply.code(303).header('location', '/console').send();
  return kit.send(reply, 200, loginPage({ style: kit.style, session: null, path: '/console/login' }, {}));
}

async function login(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const form = formOf(request);
  const email = typeof form['email'] === 'string' ? form['email'] : '';
  const refused = (status: number, error: string) =>
    kit.send(reply, status, loginPage({ style: kit.style, session: null, path: '/console/login' }, { error, email }));
  const rate = await kit.deps.consoleLogins.consume(request.ip);
  if (!rate.allowed) {
    reply.header('retry-after', '60');
    return refused(429, `Too many sign-in attempts from your address; try again in ${rate.resetSeconds} seconds.`);
  }
  try {
    const { token } = await kit.deps.console.login({
      email,
      password: typeof form['password'] === 'string' ? form['password'] : '',
      code: typeof form['code'] === 'string' ? form['code'] : undefined,
      ip: request.ip,
    });
    setSessionCookie(request, reply, SESSION_COOKIE, token, '/console');
    return reply.code(303).header('location', '/console').header('cache-control', 'no-store').send();
  } catch (err) {
    if (!(err instanceof ConsoleError)) throw err;
    return refused(err.status, err.message);
  }
}

async function logout(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply) {
  const a = await kit.acting(request, reply);
  if (!a) return reply;
  await kit.deps.console.logout(a.session, request.ip);
  clearSessionCookie(request, reply, SESSION_COOKIE, '/console');
  return reply.code(303).header('location', '/console/login').send();
}

export function registerSignInRoutes(app: FastifyInstance, kit: ConsoleKit): void {
  app.get('/console/login', CONSOLE_ROUTE, (request, reply) => showLogin(kit, request, reply));
  app.post('/console/login', CONSOLE_ROUTE, (request, reply) => login(kit, request, reply));
  app.post('/console/logout', CONSOLE_ROUTE, (request, reply) => logout(kit, request, reply));
}
