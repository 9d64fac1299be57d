import { defineIntegrationConfig } from '@fragrance/testkit/vitest';

export default defineIntegrationConfig();
