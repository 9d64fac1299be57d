import { configDefaults, defineConfig } from 'vitest/config';

// Every test here loads the model: `*.slow.test.ts` run only with `--mode slow` (npm run test:slow),
// as @fragrance/testkit/vitest does for the packages that depend on it.
export default defineConfig(({ mode }) =>
  mode === 'slow'
    ? { test: { include: ['src/**/*.slow.test.ts'] } }
    : { test: { include: ['src/**/*.test.ts'], exclude: [...configDefaults.exclude, '**/*.slow.test.ts'], passWithNoTests: true } },
);
