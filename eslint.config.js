// One lint config for the whole workspace; packages run `eslint src` against it.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.local/**', '.toolchain/**'] },
  js.configs.recommended,
  // Type-aware and strict: each package's tsconfig is found by the project service.
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  { languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } } },
  {
    rules: {
      // Numbers and booleans read fine in messages; objects, nullish values and unknowns do not.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // `(x) => void sideEffect(x)`, one-line arrow callbacks and `return callback(…)` in a
      // void function are idiomatic here.
      '@typescript-eslint/no-confusing-void-expression': [
        'error',
        { ignoreArrowShorthand: true, ignoreVoidOperator: true, ignoreVoidReturningFunctions: true },
      ],
      // process.stdin/stdout are typed as tty streams they are not constructed as; the rule flags
      // every hand-off of stdio to a function taking a stream.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      // `void` marks a one-line callback's result as discarded (house style, see above), also
      // when that result is already void.
      '@typescript-eslint/no-meaningless-void-operator': 'off',
      // Replies from outside (Elasticsearch responses, Redis replies, pino-http's req.log when a
      // router is used without the request logger) are typed more optimistically than they
      // arrive; the defensive checks on them stay, so this rule would only flag those.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Under noUncheckedIndexedAccess every indexed read is optional; a `!` marks one the code
      // around it has just bounded (a loop index, a key taken from the same map).
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Async methods that implement a Promise-returning interface (enrichers, feeds, test
      // fixtures) need not await anything.
      '@typescript-eslint/require-await': 'off',
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
    ignores: ['**/*.test.ts', '**/testing/**', 'services/*/test/**'],
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
    files: ['**/config.ts', '**/main.ts', '**/cli.ts', '**/*.test.ts', '**/testkit/src/**', 'eslint.config.js'],
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
  {
    // Tests assert by failing: a `!` on a value the test just checked, or a JSON body read as
    // the shape the test expects, is the point rather than a hazard.
    files: ['**/*.test.ts', '**/testing/**', '**/testkit/src/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-empty-function': 'off',
    },
  },
  {
    // Functions read as named steps: at most 80 lines (blank lines and comments aside) outside
    // tests, test helpers and generated code.
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts', '**/testing/**', '**/testkit/src/**', '**/generated/**'],
    rules: { 'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }] },
  },
  // `npm test` lints every package in one process (LINT_WORKSPACE=1) against the root
  // tsconfig.json: one TypeScript program for the workspace instead of one per package, plus the
  // storefront page's browser program (DOM lib), which the root one leaves out.
  ...(process.env.LINT_WORKSPACE === '1'
    ? [
        {
          languageOptions: {
            parserOptions: {
              projectService: false,
              project: ['./tsconfig.json', './examples/storefront/src/page/tsconfig.json'],
              tsconfigRootDir: import.meta.dirname,
            },
          },
        },
      ]
    : []),
  // Plain JavaScript (this file, build-stage scripts) is in no tsconfig: lint it without types,
  // whichever program the TypeScript files use.
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
