// One lint config for the whole workspace; packages run `eslint src` against it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.local/**', '.toolchain/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through the service config schema.' },
      ],
      'no-restricted-syntax': ['error', { selector: 'ExportAllDeclaration', message: 'Curate index.ts exports by name.' }],
    },
  },
  {
    // The generator is for ops, bench and tests; services use @fragrance/vocabulary for its rules.
    files: ['services/**/*.ts'],
    ignores: ['**/*.test.ts', '**/test-fixtures.ts', 'services/*/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@fragrance/dataset',
              message: 'Services do not ship the generator: import the vocabulary from @fragrance/vocabulary.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/config.ts', '**/main.ts', '**/cli.ts', '**/*.test.ts', '**/testkit/src/**', '**/bench/**', 'scripts/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // One way to open Redis (role option sets, outage logging); tests may build odd clients.
    ignores: ['**/*.test.ts', '**/testkit/src/**', '**/redis/src/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'Curate index.ts exports by name.' },
        { selector: "NewExpression[callee.name='Redis']", message: 'Open Redis with createRedisClient from @fragrance/redis.' },
      ],
    },
  },
);
