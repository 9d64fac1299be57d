// The real catalogue of `bench:relevance -- --catalogue real`: the vendored Parfumo sample
// (packages/bench/data/README.md), read by the operator importer itself, so the bench judges
// exactly the records `ops catalogue import --format parfumo-csv` would ingest.
import { fileURLToPath } from 'node:url';
import { FragranceDetail } from '@fragrance/contracts';
import { readCsv } from '@fragrance/ops';
import { deriveOccasions, deriveSeasons } from '@fragrance/vocabulary';

export const REAL_SAMPLE = fileURLToPath(new URL('../../data/parfumo-sample.csv', import.meta.url));

export interface RealCatalogue {
  records: FragranceDetail[];
  /** Lines the importer rejected (line number and reason), as `ops catalogue import` reports them. */
  rejected: { line: number; error: string }[];
}

/**
 * Every record of the file, as the importer maps it, then given seasons and occasions from its
 * accords as the worker's enrichment does after an import (what the description kind judges by).
 */
export async function readRealCatalogue(file = REAL_SAMPLE): Promise<RealCatalogue> {
  const records: FragranceDetail[] = [];
  const rejected: RealCatalogue['rejected'] = [];
  for await (const line of readCsv(file, 'parfumo-csv', new Date().toISOString())) {
    if ('error' in line) rejected.push(line);
    else records.push(enrichedLikeTheWorker(FragranceDetail.parse(line.value)));
  }
  return { records, rejected };
}

function enrichedLikeTheWorker(record: FragranceDetail): FragranceDetail {
  if (record.accords.length === 0) return record;
  return {
    ...record,
    seasons: record.seasons.length > 0 ? record.seasons : deriveSeasons(record.accords),
    occasions: record.occasions.length > 0 ? record.occasions : deriveOccasions(record.accords, record.concentration),
  };
}
