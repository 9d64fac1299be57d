import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const globalSetup = fileURLToPath(new URL('./global-setup.ts', import.meta.url));

/** Vitest config for a package whose tests talk to the real Elasticsearch and Redis. */
export function defineIntegrationConfig(overrides: ViteUserConfig['test'] = {}): ViteUserConfig {
  return defineConfig({
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      globalSetup: [globalSetup],
      testTimeout: 60_000,
      hookTimeout: 180_000,
      ...overrides,
    },
  });
}
