import { defineIntegrationConfig } from './src/vitest.ts';

export default defineIntegrationConfig();
