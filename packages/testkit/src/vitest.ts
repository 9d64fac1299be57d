import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, type ViteUserConfig, type ViteUserConfigFnObject } from 'vitest/config';

const globalSetup = fileURLToPath(new URL('./global-setup.ts', import.meta.url));

/**
 * Test files named `*.slow.test.ts` (a real browser, a conformance suite, a cluster of processes
 * or HAProxy/Sentinel/Prometheus, the embedding model) stay out of `vitest run`, which `npm test`
 * runs; `vitest run --mode slow` (each package's `test:slow`, `npm run test:slow`) runs only them.
 */
export const SLOW_TESTS = '**/*.slow.test.ts';

/** The include/exclude pair for `mode`: every fast test file, or with `mode` 'slow' only the slow ones. */
export function suiteFiles(mode: string, include: string[]): { include: string[]; exclude: string[] } {
  if (mode === 'slow')
    return { include: include.map((glob) => glob.replace(/\.test\.ts$/, '.slow.test.ts')), exclude: [...configDefaults.exclude] };
  return { include, exclude: [...configDefaults.exclude, SLOW_TESTS] };
}

/** Vitest config for a package whose tests talk to the real Elasticsearch and Redis. */
export function defineIntegrationConfig(overrides: ViteUserConfig['test'] = {}): ViteUserConfigFnObject {
  return defineConfig(({ mode }) => ({
    test: {
      ...suiteFiles(mode, ['src/**/*.test.ts', 'test/**/*.test.ts']),
      globalSetup: [globalSetup],
      testTimeout: 60_000,
      hookTimeout: 180_000,
      // With one worker per package on a 2-core machine, re-importing express, the Elasticsearch
      // and Redis clients and oidc-provider for every file cost about half of each package's CPU.
      // The files share one module graph instead; no test may rely on a fresh module state. The
      // slow suites (own processes, a browser) gain little from it and keep their isolation.
      isolate: mode === 'slow',
      ...overrides,
    },
  }));
}
