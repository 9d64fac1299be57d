import { defineConfig } from 'vitest/config';

// No shared Elasticsearch/Redis needed: these tests run their own small processes and HAProxy.
export default defineConfig({ test: { testTimeout: 30_000, hookTimeout: 30_000 } });
