// The frame of every page of the merchant console: the shared frame of the signed-in areas
// (src/shared/pages/frame.tsx: one stylesheet of our own, no script, a skip link, landmarks) with the
// console's header (the merchant, the test/live switch, the navigation by role, who is signed in), its
// message after an action, and the merchant's time zone for every time on the page.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { CsrfField as TokenField, framedPage, MessageCard, SignOutForm, type Html } from '../../../shared/pages/frame.js';
import { DEFAULT_TIME_ZONE, formatTime, statusWords } from '../../../shared/display.js';
import type { ConsoleRole } from '../../../db/schema.js';
import type { ConsoleSession } from '../console-auth.service.js';

export { Messages, Money, type Html } from '../../../shared/pages/frame.js';

export type Env = 'test' | 'live';

const NAV: Array<{ path: string; label: string; roles?: readonly ConsoleRole[] }> = [
  { path: '/console', label: 'Home' },
  { path: '/console/payments', label: 'Payments' },
  { path: '/console/refunds', label: 'Refunds' },
  { path: '/console/settlements', label: 'Settlements' },
  { path: '/console/payouts', label: 'Payouts' },
  { path: '/console/links', label: 'Payment links' },
  { path: '/console/customers', label: 'Customers' },
  { path: '/console/reports', label: 'Reports' },
  { path: '/console/events', label: 'Events' },
  { path: '/console/developers', label: 'Developers' },
  { path: '/console/verification', label: 'Business verification' },
  { path: '/console/team', label: 'Team', roles: ['owner'] },
  { path: '/console/audit', label: 'Audit log', roles: ['owner'] },
  { path: '/console/account', label: 'Your account' },
];

export interface PageContext {
  style: string;
  session: ConsoleSession | null;
  /** The page's own path, for the navigation's current item and the environment switch. */
  path: string;
  env?: Env;
  /** The live side is reachable (the merchant is verified). */
  liveOpen?: boolean;
  merchantName?: string;
  /** The merchant's IANA time zone: every time on the page is shown in it. */
  timeZone?: string;
  /** A message after an action (the page after the redirect shows it once). */
  flash?: string;
}

/** The zone the page's times are shown in. */
const Zone = createContext(DEFAULT_TIME_ZONE);

/** A moment in the merchant's time zone ("27 Nov 2026, 09:31"), machine-readable in `datetime`; `zone` adds the zone's name. */
export function When({ t, zone }: { t: number | string | null | undefined; zone?: boolean }) {
  const tz = useContext(Zone);
  if (t === null || t === undefined || t === '') return <>—</>;
  const ms = typeof t === 'number' ? t : Date.parse(t);
  if (!Number.isFinite(ms)) return <>{String(t)}</>;
  return (
    <>
      <time datetime={new Date(ms).toISOString()}>{formatTime(ms, tz)}</time>
      {zone ? <span class="tz"> {tz}</span> : null}
    </>
  );
}

/** The name of the page's time zone. */
export function ZoneName() {
  return <>{useContext(Zone)}</>;
}

/** A status in words, with the raw status for machines. */
export const Status = ({ status }: { status: string }) => (
  <span class="status" data-status={status}>
    {statusWords(status)}
  </span>
);

/** The hidden field carrying the session's CSRF token, in every form that changes something. */
export const CsrfField = ({ session }: { session: ConsoleSession }) => <TokenField token={session.csrf} />;

function Header({ ctx }: { ctx: PageContext }) {
  const s = ctx.session;
  return (
    <header class="top">
      <span class="brand">Cowrie{ctx.merchantName ? ` · ${ctx.merchantName}` : ''}</span>
      {s && ctx.env ? (
        <p class="env" aria-label="Environment">
          {(['test', 'live'] as const).map((e) => (
            <a href={`${ctx.path}?env=${e}`} aria-current={ctx.env === e ? 'true' : undefined}>
              {e === 'test' ? 'Test' : 'Live'}
            </a>
          ))}
        </p>
      ) : null}
      {s ? (
        <nav aria-label="Console">
          <ul>
            {NAV.filter((n) => !n.roles || n.roles.includes(s.user.role)).map((n) => (
              <li>
                <a href={n.path} aria-current={n.path === ctx.path ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
      {s ? <SignOutForm action="/console/logout" csrf={s.csrf} who={`${s.user.email} (${s.user.role})`} /> : null}
    </header>
  );
}

/** A whole page as HTML text: the frame around `body`. */
export function page(ctx: PageContext, title: string, body: Html): string {
  return framedPage(
    { title, area: 'Cowrie console', style: ctx.style, header: <Header ctx={ctx} /> },
    <>
      {ctx.flash ? (
        <p class="notice" role="status" id="flash">
          {ctx.flash}
        </p>
      ) : null}
      <Zone.Provider value={ctx.timeZone ?? DEFAULT_TIME_ZONE}>{body}</Zone.Provider>
    </>,
  );
}

export function messagePage(ctx: PageContext, title: string, text: string): string {
  return page(ctx, title, <MessageCard text={text} back={{ href: '/console', label: 'Back to the console' }} />);
}
