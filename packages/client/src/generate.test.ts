import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, renderTypes } from './generate.ts';

describe('the generated types', () => {
  it('match the OpenAPI document the contracts build today (else: pnpm --filter @fragrance/client generate)', async () => {
    const onDisk = readFileSync(GENERATED_FILE, 'utf8');
    expect(onDisk.startsWith('// GENERATED FILE, do not edit')).toBe(true);
    expect(onDisk, 'src/generated/openapi.ts is stale: run pnpm --filter @fragrance/client generate').toBe(await renderTypes());
  });
});
