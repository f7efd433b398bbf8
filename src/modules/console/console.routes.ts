// The merchant console's HTTP: pages at /console on every listener (one console for both environments,
// with a test/live switch), plain forms posted back with the session's CSRF token, then a redirect (a
// reload never posts twice). Every action calls the same services as the API and is written to the audit
// log. A request without a valid session is sent to the sign-in page; a form without the session's CSRF
// token answers 403 and changes nothing; a role's forbidden action is not offered and answers 403.
//
// Each feature's routes live in routes/<feature>.routes.ts and its pages in pages/; routes/shared.routes.ts
// holds what they all use. They are registered here, in this order.
import type { FastifyInstance } from 'fastify';
import { acceptForms } from '../../http/forms.js';
import { registerAccountRoutes } from './routes/account.routes.js';
import { registerDeveloperRoutes } from './routes/developers.routes.js';
import { registerPaymentRoutes } from './routes/payments.routes.js';
import { registerPayoutRoutes } from './routes/payouts.routes.js';
import { registerRecordRoutes } from './routes/records.routes.js';
import { registerSandboxRoutes } from './routes/sandbox.routes.js';
import { consoleKit, type ConsoleRouteDeps } from './routes/shared.routes.js';
import { registerSignInRoutes } from './routes/sign-in.routes.js';

export type { ConsoleRouteDeps } from './routes/shared.routes.js';

export async function consoleRoutes(app: FastifyInstance, opts: { deps: ConsoleRouteDeps }): Promise<void> {
  await acceptForms(app);
  const kit = consoleKit(app, opts.deps);
  registerSignInRoutes(app, kit);
  registerPaymentRoutes(app, kit);
  registerSandboxRoutes(app, kit);
  registerDeveloperRoutes(app, kit);
  registerRecordRoutes(app, kit);
  registerPayoutRoutes(app, kit);
  registerAccountRoutes(app, kit);
}
