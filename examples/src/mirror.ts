// Mirror the catalogue with incremental sync: `node examples/src/mirror.ts [mirror.json]`.
// The first run copies every fragrance (full records, through the bulk export); each later run
// asks only for records after the last one it holds, in (updated_at, id) order, and updates the
// file in place.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createFragranceClient, FragranceApiError, type FragranceDetail } from '@fragrance/client';
import { loadConfig } from './config.ts';

interface Mirror {
  /**
   * `<updated_at>,<id>` of the last record received: the next sync continues strictly after it.
   * An instant alone is not enough: an enrichment run stamps thousands of records with the same
   * `updated_at`, and `updated_since` (inclusive) would send them all again on every sync.
   */
  watermark: string | null;
  records: Record<string, FragranceDetail>;
}

const file = process.argv[2] ?? 'fragrance-mirror.json';
const { FRAGRANCE_API_URL, FRAGRANCE_API_KEY } = loadConfig();
const client = createFragranceClient({ baseUrl: FRAGRANCE_API_URL, apiKey: FRAGRANCE_API_KEY, retryOn429: true });
const mirror: Mirror = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Mirror) : { watermark: null, records: {} };

const save = () => {
  // Written whole then renamed: an interrupted run never leaves half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(mirror));
  renameSync(`${file}.tmp`, file);
};

let changed = 0;
try {
  // Least recently changed first (one counted request per 1,000 records): a sync cut off half-way
  // keeps what it received, and the next one resumes after the last complete record.
  for await (const record of client.exportAll(mirror.watermark ? { after: mirror.watermark } : {})) {
    mirror.records[record.id] = record;
    mirror.watermark = `${record.updated_at},${record.id}`;
    changed += 1;
  }
} catch (error) {
  if (!(error instanceof FragranceApiError)) throw error;
  save();
  console.error(`refused: ${error.message} (${changed} records kept; the next run resumes after them)`);
  process.exit(1);
}
save();
console.log(
  `${changed} new or changed; ${Object.keys(mirror.records).length} in ${file}; next sync from ${mirror.watermark ?? 'the start'}`,
);
