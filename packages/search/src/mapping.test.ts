import { FragranceSummary } from '@fragrance/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FRAGRANCE_MAPPING } from './mapping.ts';
import { SUMMARY_FIELDS } from './summary.ts';
import { makeRecord } from './testing.ts';

describe('SUMMARY_FIELDS', () => {
  it('projects a record onto exactly a FragranceSummary, nothing missing and nothing extra', () => {
    const record = makeRecord({ name: 'Noir', brand: 'Maison Éclat', year_released: 2011, votes: 120 });
    const projected = Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, record[field]]));
    expect(z.strictObject(FragranceSummary.shape).parse(projected)).toEqual(FragranceSummary.parse(record));
  });

  it('names only fields the index maps, so _source includes can return each of them', () => {
    expect(SUMMARY_FIELDS.filter((field) => !(field in (FRAGRANCE_MAPPING.properties ?? {})))).toEqual([]);
  });
});
