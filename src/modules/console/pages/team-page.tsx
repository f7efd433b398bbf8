// The Team page (owners): the merchant's time zone, the users with their roles (changed or removed here,
// never the last owner), and the form adding a user, whose one-time password is shown once.
import type { ConsoleUserRow } from '../../../db/schema.js';
import { statusWords } from '../../../shared/display.js';
import { ROLES } from '../console-auth.service.js';
import { CsrfField, Messages, page, When, type PageContext } from './layout.js';
import { Table, type Column } from './list-page.js';

export interface TeamPageData {
  users: ConsoleUserRow[];
  timeZone: string;
  zones: string[];
  /** A new user's one-time password, shown this once. */
  added?: { email: string; password: string };
  notice?: string;
  error?: string;
}

function RoleForm({ u, ctx }: { u: ConsoleUserRow; ctx: PageContext }) {
  return (
    <form method="post" action={`/console/team/${u.id}/role`} class="inline">
      <CsrfField session={ctx.session!} />
      <label for={`role-${u.id}`}>Role of {u.email}</label>
      <select id={`role-${u.id}`} name="role">
        {ROLES.map((r) => (
          <option value={r} selected={u.role === r}>
            {statusWords(r)}
          </option>
        ))}
      </select>
      <button type="submit" class="secondary">
        Change role
      </button>
    </form>
  );
}

function RemoveForm({ u, ctx }: { u: ConsoleUserRow; ctx: PageContext }) {
  return (
    <form method="post" action={`/console/team/${u.id}/remove`} class="inline">
      <CsrfField session={ctx.session!} />
      <div class="confirm">
        <input id={`remove-${u.id}`} name="confirm" type="checkbox" value="yes" required />
        <label for={`remove-${u.id}`}>Yes, remove {u.email}</label>
      </div>
      <button type="submit" class="secondary" aria-label={`Remove ${u.email}`}>
        Remove
      </button>
    </form>
  );
}

const columns = (ctx: PageContext): Column<ConsoleUserRow>[] => [
  { heading: 'Email', cell: (u) => u.email },
  { heading: 'Role', cell: (u) => <RoleForm u={u} ctx={ctx} /> },
  { heading: 'Two-step sign-in', cell: (u) => (u.totp_secret ? 'On' : 'Off') },
  { heading: 'Added', cell: (u) => <When t={Number(u.created_at)} />, time: true },
  { heading: 'Remove', cell: (u) => (u.id === ctx.session!.user.id ? 'You' : <RemoveForm u={u} ctx={ctx} />) },
];

function AddUserForm({ ctx }: { ctx: PageContext }) {
  return (
    <form method="post" action="/console/team" class="card">
      <CsrfField session={ctx.session!} />
      <h2>Add a user</h2>
      <label for="new-email">Email</label>
      <input id="new-email" name="email" type="email" autocomplete="off" required />
      <label for="new-role">Role</label>
      <select id="new-role" name="role">
        <option value="viewer">Viewer: reads everything</option>
        <option value="developer">Developer: keys, webhooks, events and the test tools</option>
        <option value="owner">Owner: everything</option>
      </select>
      <p class="hint">They get a one-time password, shown here once: give it to them; they change it under Your account.</p>
      <button type="submit">Add user</button>
    </form>
  );
}

function TimeZoneForm({ ctx, data }: { ctx: PageContext; data: TeamPageData }) {
  return (
    <form method="post" action="/console/team/time-zone" class="card">
      <CsrfField session={ctx.session!} />
      <h2>Time zone</h2>
      <label for="time-zone">Times and days in the console are in</label>
      <select id="time-zone" name="time_zone">
        {data.zones.map((z) => (
          <option value={z} selected={z === data.timeZone}>
            {z}
          </option>
        ))}
      </select>
      <button type="submit">Save time zone</button>
    </form>
  );
}

export function teamPage(ctx: PageContext, data: TeamPageData): string {
  return page(
    ctx,
    'Team',
    <>
      <Messages notice={data.notice} error={data.error} />
      {data.added ? (
        <div class="card" role="status">
          <p>
            <strong>{data.added.email}</strong> can sign in with this one-time password, shown this once:
          </p>
          <p>
            <code id="new-password">{data.added.password}</code>
          </p>
        </div>
      ) : null}
      <section aria-labelledby="h-users">
        <h2 id="h-users">Users</h2>
        <Table label="Users" rows={data.users} columns={columns(ctx)} />
      </section>
      <AddUserForm ctx={ctx} />
      <TimeZoneForm ctx={ctx} data={data} />
    </>,
  );
}
