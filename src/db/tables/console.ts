// Row types of the merchant console: its users, their sessions and the audit log (src/db/schema.ts
// assembles every area's tables into DB).
import type { Generated, Selectable } from 'kysely';

export type ConsoleRole = 'owner' | 'developer' | 'viewer';

export interface ConsoleUsersTable {
  id: string;
  merchant_id: string;
  /** Lower-cased. */
  email: string;
  role: ConsoleRole;
  /** scrypt$N$r$p$salt$hash (src/modules/console/passwords.ts). */
  password_hash: string;
  /** Base32 TOTP secret once the second factor is on; the one being set up until it is confirmed. */
  totp_secret: string | null;
  totp_pending: string | null;
  /** Consecutive wrong passwords; five lock the account until locked_until. */
  failed_logins: Generated<number>;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface ConsoleSessionsTable {
  /** SHA-256 (hex) of the cookie's token. */
  id: string;
  user_id: string;
  /** The session's anti-forgery token, in every form. */
  csrf: string;
  created_at: number;
  /** Idle expiry: renewed by each request. */
  expires_at: number;
}

export interface AuditLogTable {
  id: string;
  merchant_id: string;
  user_id: string | null;
  /** Who: the user's email, or `operator` for the command line. */
  actor: string;
  action: string;
  target: string | null;
  /** JSON. */
  detail: string | null;
  ip: string | null;
  created_at: number;
}

/** A console user's unused recovery codes (SHA-256 of each); one is deleted when used. */
export interface ConsoleRecoveryCodesTable {
  user_id: string;
  code_hash: string;
  created_at: number;
}

export type ConsoleUserRow = Selectable<ConsoleUsersTable>;
export type AuditLogRow = Selectable<AuditLogTable>;
