// ESLint (typescript-eslint) for src/, test/, peers/ and bench/; formatting is Prettier's (npm run format).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

/** Kysely's query builders: only repositories (and src/db) write SQL. */
const SQL_CALLS = '^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|executeQuery)$';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'public/', 'packages/*/dist/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/db/**', 'src/**/*.repo.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `CallExpression[callee.property.name=/${SQL_CALLS}/]`,
          message: 'SQL lives in repositories (*.repo.ts) and src/db only.',
        },
        {
          selector: "CallExpression[callee.property.name='transaction']",
          message: 'Open transactions with transaction() from src/db/transaction.ts, whose afterCommit hooks run at commit.',
        },
      ],
    },
  },
  {
    // Files and functions a maintainer can hold in mind: a file that grows past 400 lines, or a function past
    // 80, is split by use case (blank lines and comments do not count).
    files: ['src/**/*.ts', 'src/**/*.tsx', 'packages/sdk/src/**/*.ts'],
    ignores: ['packages/sdk/src/openapi.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // A migration is a list of statements written once and never edited: its length is its history's.
    files: ['src/db/migrations/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // Kysely's own generic plumbing, and migrations, which by design know no table types.
    files: ['src/db/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['scripts/**/*.mjs', '*.js', '*.cjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', module: 'writable', require: 'readonly' } },
  },
  {
    files: ['test/**/*.ts', 'peers/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  prettier,
);
