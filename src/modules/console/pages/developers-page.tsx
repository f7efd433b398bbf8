// The developers' tools of one environment: API keys and webhook endpoints (developers and owners act,
// viewers read), and one endpoint's delivery log.
import type { ConsoleSession } from '../console-auth.service.js';
import { CsrfField, Messages, page, type Env, type PageContext } from './layout.js';
import { code, listPage, Table, text, type Column } from './list-page.js';

export interface KeyRowView {
  id: string;
  type: string;
  hint: string;
  scopes: string[];
  allowed_ips: string[];
  status: string;
  created_at: string;
  expires_at: string | null;
}

export interface EndpointRowView {
  id: string;
  url: string;
  status: string;
  events: string[];
  created_at: string;
}

export interface DevelopersPageData {
  keys: KeyRowView[];
  endpoints: EndpointRowView[];
  scopes: readonly string[];
  canAct: boolean;
  shown?: { label: string; secret: string };
  notice?: string;
  error?: string;
}

/** What each form of the page shares: the environment's query and the session (for the CSRF field). */
interface FormParts {
  q: string;
  s: ConsoleSession;
}

function KeyActions({ k, parts: { q, s } }: { k: KeyRowView; parts: FormParts }) {
  return (
    <>
      <form method="post" action={`/console/developers/keys/${k.id}/rotate${q}`}>
        <CsrfField session={s} />
        <label for={`grace-${k.id}`}>Old key works for (hours)</label>
        <input id={`grace-${k.id}`} name="hours" type="text" inputmode="numeric" value="24" />
        <button type="submit" class="secondary">
          Rotate
        </button>
      </form>
      <form method="post" action={`/console/developers/keys/${k.id}/revoke${q}`}>
        <CsrfField session={s} />
        <button type="submit" class="secondary" aria-label={`Revoke ${k.hint}`}>
          Revoke
        </button>
      </form>
    </>
  );
}

const keyColumns = (canAct: boolean, parts: FormParts): Column<KeyRowView>[] => [
  { heading: 'Key', cell: (k) => <code>{k.hint}</code> },
  { heading: 'Type', cell: (k) => k.type },
  { heading: 'Scopes', cell: (k) => k.scopes.join(', ') || '—' },
  { heading: 'Allowed addresses', cell: (k) => k.allowed_ips.join(', ') || '—' },
  { heading: 'Status', cell: (k) => <span class="status">{k.status}</span> },
  { heading: 'Created', cell: (k) => k.created_at },
  { heading: 'Expires', cell: (k) => k.expires_at ?? '—' },
  { heading: 'Actions', cell: (k) => (canAct && k.status === 'active' ? <KeyActions k={k} parts={parts} /> : '') },
];

function CreateKeyForm({ data, env, parts: { q, s } }: { data: DevelopersPageData; env: Env; parts: FormParts }) {
  if (!data.canAct) return null;
  return (
    <form method="post" action={`/console/developers/keys${q}`} class="card">
      <CsrfField session={s} />
      <h3>Create a key</h3>
      <label for="key-type">Type</label>
      <select id="key-type" name="type">
        <option value="secret">Secret</option>
        <option value="restricted">Restricted</option>
        <option value="publishable">Publishable</option>
      </select>
      <fieldset>
        <legend>Scopes (restricted keys)</legend>
        {data.scopes.map((sc) => (
          <label>
            <input type="checkbox" name="scope" value={sc} /> {sc}
          </label>
        ))}
      </fieldset>
      {env === 'live' ? (
        <>
          <label for="key-ips">Allowed addresses (comma-separated IPs or CIDR ranges; empty allows any)</label>
          <input id="key-ips" name="allowed_ips" type="text" />
        </>
      ) : null}
      <button type="submit">Create key</button>
    </form>
  );
}

/** One small form posting to an endpoint's action. */
function EndpointAction({
  e,
  action,
  label,
  text: words,
  parts: { q, s },
}: {
  e: EndpointRowView;
  action: string;
  label: string;
  text: string;
  parts: FormParts;
}) {
  return (
    <form method="post" action={`/console/developers/webhooks/${e.id}/${action}${q}`}>
      <CsrfField session={s} />
      <button type="submit" class="secondary" aria-label={label}>
        {words}
      </button>
    </form>
  );
}

function EndpointActions({ e, parts }: { e: EndpointRowView; parts: FormParts }) {
  return (
    <>
      {e.status === 'enabled' ? <EndpointAction e={e} action="pause" label={`Pause ${e.url}`} text="Pause" parts={parts} /> : null}
      {e.status === 'paused' ? <EndpointAction e={e} action="resume" label={`Resume ${e.url}`} text="Resume" parts={parts} /> : null}
      <EndpointAction e={e} action="rotate" label={`Rotate the secret of ${e.url}`} text="Rotate secret" parts={parts} />
      <EndpointAction e={e} action="delete" label={`Delete ${e.url}`} text="Delete" parts={parts} />
    </>
  );
}

const endpointColumns = (canAct: boolean, parts: FormParts): Column<EndpointRowView>[] => [
  {
    heading: 'URL',
    cell: (e) => (
      <a href={`/console/developers/webhooks/${e.id}${parts.q}`}>
        <code>{e.url}</code>
      </a>
    ),
  },
  { heading: 'Status', cell: (e) => <span class="status">{e.status}</span> },
  { heading: 'Events', cell: (e) => e.events.join(', ') || 'every type' },
  { heading: 'Created', cell: (e) => e.created_at },
  { heading: 'Actions', cell: (e) => (canAct ? <EndpointActions e={e} parts={parts} /> : '') },
];

function CreateEndpointForm({ data, parts: { q, s } }: { data: DevelopersPageData; parts: FormParts }) {
  if (!data.canAct) return null;
  return (
    <form method="post" action={`/console/developers/webhooks${q}`} class="card">
      <CsrfField session={s} />
      <h3>Add an endpoint</h3>
      <label for="we-url">URL</label>
      <input id="we-url" name="url" type="text" inputmode="url" required />
      <label for="we-events">Event types (comma-separated; empty for every type)</label>
      <input id="we-events" name="events" type="text" />
      <button type="submit">Add endpoint</button>
    </form>
  );
}

/** Keys and webhook endpoints of one environment (developers and owners act; viewers read). */
export function developersPage(ctx: PageContext, data: DevelopersPageData): string {
  const env = ctx.env ?? 'test';
  const parts = { q: `?env=${env}`, s: ctx.session! };
  return page(
    ctx,
    'Developers',
    <>
      <Messages notice={data.notice} error={data.error} />
      {data.shown ? (
        <div class="card" role="status">
          <p>
            <strong>{data.shown.label}</strong> It is shown this once: copy it now.
          </p>
          <p>
            <code id="shown-secret">{data.shown.secret}</code>
          </p>
        </div>
      ) : null}
      <p>
        Every operation, its parameters and its errors: the <a href="/docs/api">API reference</a>.
      </p>
      <section aria-labelledby="h-keys">
        <h2 id="h-keys">API keys</h2>
        <Table label="API keys" rows={data.keys} columns={keyColumns(data.canAct, parts)} />
        <CreateKeyForm data={data} env={env} parts={parts} />
      </section>
      <section aria-labelledby="h-webhooks">
        <h2 id="h-webhooks">Webhook endpoints</h2>
        {data.endpoints.length === 0 ? (
          <p>No webhook endpoints.</p>
        ) : (
          <Table label="Webhook endpoints" rows={data.endpoints} columns={endpointColumns(data.canAct, parts)} />
        )}
        <CreateEndpointForm data={data} parts={parts} />
      </section>
    </>,
  );
}

export interface DeliveryRowView {
  event: string;
  type: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  created_at: string;
}

const DELIVERY_COLUMNS: Column<DeliveryRowView>[] = [
  {
    heading: 'Event',
    cell: (d) => (
      <>
        <strong>{d.type}</strong>
        <br />
        {code(d.event)}
      </>
    ),
  },
  { heading: 'Status', cell: (d) => <span class="status">{d.status}</span> },
  { heading: 'Attempts', cell: (d) => text(d.attempt_count) },
  { heading: 'Last answer', cell: (d) => (d.last_status_code === null ? text(d.last_error) : `HTTP ${d.last_status_code}`) },
  { heading: 'Last attempt', cell: (d) => text(d.last_attempt_at) },
  { heading: 'Created', cell: (d) => text(d.created_at) },
];

/** An endpoint's delivery log: its latest deliveries, each with its event, status and last answer. */
export function endpointDeliveriesPage(
  ctx: PageContext,
  log: { endpoint: { url: string; status: string }; deliveries: DeliveryRowView[] },
): string {
  return listPage({ ...ctx, path: '/console/developers' }, `Deliveries to ${log.endpoint.url}`, {
    rows: log.deliveries,
    columns: DELIVERY_COLUMNS,
    empty: 'No deliveries yet.',
    before: (
      <p>
        Status: <span class="status">{log.endpoint.status}</span>. The latest 50 deliveries, newest first.
      </p>
    ),
  });
}
