// The developers' tools of one environment: API keys and webhook endpoints (developers and owners act,
// viewers read), and one endpoint's delivery log.
import { esc, page, type Env, type PageContext } from './layout.js';
import { code, listPage, text, type Column } from './list-page.js';

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

/** What each form of the page shares: the environment's query and the CSRF field. */
interface FormParts {
  q: string;
  hidden: string;
}

function keyRow(k: KeyRowView, canAct: boolean, { q, hidden }: FormParts): string {
  return `<tr><td><code>${esc(k.hint)}</code></td><td>${esc(k.type)}</td><td>${esc(k.scopes.join(', ') || '—')}</td><td>${esc(k.allowed_ips.join(', ') || '—')}</td><td><span class="status">${esc(k.status)}</span></td><td>${esc(k.created_at)}</td><td>${esc(k.expires_at ?? '—')}</td><td>${
    canAct && k.status === 'active'
      ? `<form method="post" action="/console/developers/keys/${esc(k.id)}/rotate${q}">${hidden}<label for="grace-${esc(k.id)}">Old key works for (hours)</label><input id="grace-${esc(k.id)}" name="hours" type="text" inputmode="numeric" value="24"><button type="submit" class="secondary">Rotate</button></form>
<form method="post" action="/console/developers/keys/${esc(k.id)}/revoke${q}">${hidden}<button type="submit" class="secondary" aria-label="Revoke ${esc(k.hint)}">Revoke</button></form>`
      : ''
  }</td></tr>`;
}

function keysTable(data: DevelopersPageData, parts: FormParts): string {
  const rows = data.keys.map((k) => keyRow(k, data.canAct, parts)).join('');
  return `<div class="table-wrap" tabindex="0" role="region" aria-label="API keys"><table><thead><tr><th scope="col">Key</th><th scope="col">Type</th><th scope="col">Scopes</th><th scope="col">Allowed addresses</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function createKeyForm(data: DevelopersPageData, env: Env, { q, hidden }: FormParts): string {
  return data.canAct
    ? `<form method="post" action="/console/developers/keys${q}" class="card">${hidden}<h3>Create a key</h3>
<label for="key-type">Type</label><select id="key-type" name="type"><option value="secret">Secret</option><option value="restricted">Restricted</option><option value="publishable">Publishable</option></select>
<fieldset><legend>Scopes (restricted keys)</legend>${data.scopes
        .map((sc) => `<label><input type="checkbox" name="scope" value="${esc(sc)}"> ${esc(sc)}</label>`)
        .join('')}</fieldset>
${env === 'live' ? '<label for="key-ips">Allowed addresses (comma-separated IPs or CIDR ranges; empty allows any)</label><input id="key-ips" name="allowed_ips" type="text">' : ''}
<button type="submit">Create key</button></form>`
    : '';
}

function endpointActions(e: EndpointRowView, { q, hidden }: FormParts): string {
  return `${
    e.status === 'enabled'
      ? `<form method="post" action="/console/developers/webhooks/${esc(e.id)}/pause${q}">${hidden}<button type="submit" class="secondary" aria-label="Pause ${esc(e.url)}">Pause</button></form>`
      : e.status === 'paused'
        ? `<form method="post" action="/console/developers/webhooks/${esc(e.id)}/resume${q}">${hidden}<button type="submit" class="secondary" aria-label="Resume ${esc(e.url)}">Resume</button></form>`
        : ''
  }<form method="post" action="/console/developers/webhooks/${esc(e.id)}/rotate${q}">${hidden}<button type="submit" class="secondary" aria-label="Rotate the secret of ${esc(e.url)}">Rotate secret</button></form><form method="post" action="/console/developers/webhooks/${esc(e.id)}/delete${q}">${hidden}<button type="submit" class="secondary" aria-label="Delete ${esc(e.url)}">Delete</button></form>`;
}

function endpointsTable(data: DevelopersPageData, parts: FormParts): string {
  const rows = data.endpoints
    .map(
      (e) =>
        `<tr><td><a href="/console/developers/webhooks/${esc(e.id)}${parts.q}"><code>${esc(e.url)}</code></a></td><td><span class="status">${esc(e.status)}</span></td><td>${esc(e.events.join(', ') || 'every type')}</td><td>${esc(e.created_at)}</td><td>${
          data.canAct ? endpointActions(e, parts) : ''
        }</td></tr>`,
    )
    .join('');
  return data.endpoints.length === 0
    ? '<p>No webhook endpoints.</p>'
    : `<div class="table-wrap" tabindex="0" role="region" aria-label="Webhook endpoints"><table><thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Events</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function createEndpointForm(data: DevelopersPageData, { q, hidden }: FormParts): string {
  return data.canAct
    ? `<form method="post" action="/console/developers/webhooks${q}" class="card">${hidden}<h3>Add an endpoint</h3>
<label for="we-url">URL</label><input id="we-url" name="url" type="text" inputmode="url" required>
<label for="we-events">Event types (comma-separated; empty for every type)</label><input id="we-events" name="events" type="text">
<button type="submit">Add endpoint</button></form>`
    : '';
}

/** Keys and webhook endpoints of one environment (developers and owners act; viewers read). */
export function developersPage(ctx: PageContext, data: DevelopersPageData): string {
  const s = ctx.session!;
  const env = ctx.env ?? 'test';
  const parts = { q: `?env=${env}`, hidden: `<input type="hidden" name="_csrf" value="${esc(s.csrf)}">` };
  return page(
    ctx,
    'Developers',
    `${data.notice ? `<p class="notice" role="status">${esc(data.notice)}</p>` : ''}${data.error ? `<p class="error" role="alert">${esc(data.error)}</p>` : ''}
${data.shown ? `<div class="card" role="status"><p><strong>${esc(data.shown.label)}</strong> It is shown this once: copy it now.</p><p><code id="shown-secret">${esc(data.shown.secret)}</code></p></div>` : ''}
<p>Every operation, its parameters and its errors: the <a href="/docs/api">API reference</a>.</p>
<section aria-labelledby="h-keys"><h2 id="h-keys">API keys</h2>${keysTable(data, parts)}${createKeyForm(data, env, parts)}</section>
<section aria-labelledby="h-webhooks"><h2 id="h-webhooks">Webhook endpoints</h2>${endpointsTable(data, parts)}${createEndpointForm(data, parts)}</section>`,
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
  { heading: 'Event', cell: (d) => `<strong>${esc(d.type)}</strong><br>${code(d.event)}` },
  { heading: 'Status', cell: (d) => `<span class="status">${esc(d.status)}</span>` },
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
    before: `<p>Status: <span class="status">${esc(log.endpoint.status)}</span>. The latest 50 deliveries, newest first.</p>`,
  });
}
