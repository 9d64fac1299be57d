import { defineConfig } from 'vitest/config';

// kubectl kustomize and the schema modules' first import take seconds on a busy 2-core machine.
export default defineConfig({ test: { include: ['src/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } });
