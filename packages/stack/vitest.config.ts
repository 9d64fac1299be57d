import { suiteFiles } from '@fragrance/testkit/vitest';
import { defineConfig } from 'vitest/config';

// No shared Elasticsearch/Redis needed: these tests run their own small processes and HAProxy.
// HAProxy's tests are slow ones (`--mode slow`).
export default defineConfig(({ mode }) => ({
  test: {
    ...suiteFiles(mode, ['src/**/*.test.ts']),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
}));
