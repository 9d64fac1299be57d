import { fileURLToPath } from 'node:url';
import { suiteFiles } from '@fragrance/testkit/vitest';
import { defineConfig } from 'vitest/config';

// No shared Elasticsearch/Redis needed: these tests run their own small processes and HAProxy.
// The cluster command's own tests (scripts/cluster) run here too: scripts/ is no package, and
// this one already typechecks and lints it. HAProxy's tests are slow ones (`--mode slow`).
export default defineConfig(({ mode }) => ({
  test: {
    dir: fileURLToPath(new URL('../../', import.meta.url)),
    ...suiteFiles(mode, ['packages/stack/src/**/*.test.ts', 'scripts/**/*.test.ts']),
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
}));
