// What every server and command a test starts is given, beside its own variables: console passwords and PINs
// hashed at scrypt's lowest accepted cost (2^10), since a test signs in hundreds of times and checks the
// hashing's rules, not its strength. The default cost (2^15) is checked by test/passwords.test.ts. On
// PostgreSQL, where the server needs it given, the key that seals webhook endpoint secrets (on SQLite
// each test database gets a key file of its own beside it). Live payer accounts off, so that a live intent
// offers exactly the rails a test configures; the payer tests turn them on.
export const TEST_SECRETS_KEY = Buffer.alloc(32, 0x5e).toString('base64');

export const TEST_SERVER_ENV: Readonly<Record<string, string>> = Object.freeze({
  COWRIE_PASSWORD_HASH_COST: '10',
  COWRIE_PAYER_ACCOUNTS: 'off',
  ...(process.env['COWRIE_TEST_ENGINE'] === 'postgres' ? { COWRIE_SECRETS_KEY: TEST_SECRETS_KEY } : {}),
});
