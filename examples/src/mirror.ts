// Mirror the catalogue with incremental sync: `node examples/src/mirror.ts [mirror.json]`.
// The first run copies every fragrance; each later run asks only for what changed since the last
// one (`sort=updated` + `updated_since`, paged by cursor) and updates the file in place.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createFragranceClient, FragranceApiError, type SearchHit } from '@fragrance/client';
import { loadConfig } from './config.ts';

interface Mirror {
  /** `updated_at` of the last record seen: the next sync starts there (updated_since is inclusive). */
  watermark: string | null;
  records: Record<string, SearchHit>;
}

const file = process.argv[2] ?? 'fragrance-mirror.json';
const { FRAGRANCE_API_URL, FRAGRANCE_API_KEY } = loadConfig();
const client = createFragranceClient({ baseUrl: FRAGRANCE_API_URL, apiKey: FRAGRANCE_API_KEY, retryOn429: true });

const mirror: Mirror = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Mirror) : { watermark: null, records: {} };
try {
  let changed = 0;
  let last: SearchHit | undefined;
  // Least recently changed first: a sync that stops half-way still leaves a correct watermark.
  for await (const hit of client.searchAll({
    sort: 'updated',
    limit: 100,
    ...(mirror.watermark ? { updated_since: mirror.watermark } : {}),
  })) {
    mirror.records[hit.id] = hit;
    last = hit;
    changed += 1;
  }
  // Summaries carry no updated_at: the last one's detail gives the new watermark (one request).
  if (last) mirror.watermark = (await client.fragrance(last.id)).updated_at;
  // Written whole then renamed: an interrupted run never leaves half a file.
  writeFileSync(`${file}.tmp`, JSON.stringify(mirror));
  renameSync(`${file}.tmp`, file);
  console.log(
    `${changed} new or changed; ${Object.keys(mirror.records).length} in ${file}; next sync from ${mirror.watermark ?? 'the start'}`,
  );
} catch (error) {
  if (!(error instanceof FragranceApiError)) throw error;
  console.error(`refused: ${error.message}`);
  process.exit(1);
}
