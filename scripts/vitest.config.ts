import { suiteFiles } from '@fragrance/testkit/vitest';
import { defineConfig } from 'vitest/config';

// No shared Elasticsearch/Redis needed: these tests run small processes of their own.
export default defineConfig(({ mode }) => ({
  test: {
    ...suiteFiles(mode, ['**/*.test.ts']),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
}));
