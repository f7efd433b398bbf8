export { authenticateKey, issueKey, keyAuthenticator, listKeys, revokeKey, rotateKey } from './keys.service.js';
export type { AuthenticatedKey, IssueKeyInput, IssuedKey, KeyListing, RotateOutcome } from './keys.service.js';
export { claimedEnvironment, parseKey } from './key-format.js';
export { ipAllowed } from './ip-allowlist.js';
export { SCOPES, hasAnyScope, type Scope } from './scopes.js';
