// What every server and command a test starts is given, beside its own variables: console passwords and PINs
// hashed at scrypt's lowest accepted cost (2^10), since a test signs in hundreds of times and checks the
// hashing's rules, not its strength. The default cost (2^15) is checked by test/passwords.test.ts.
export const TEST_SERVER_ENV: Readonly<Record<string, string>> = Object.freeze({
  COWRIE_PASSWORD_HASH_COST: '10',
});
