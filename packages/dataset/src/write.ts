import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startCatalogueRun, type GenerateOptions } from './catalogue.ts';
import { FeedCollector } from './feed.ts';

export const CATALOGUE_FILE = 'catalogue.ndjson';
export const FEED_FILE = 'au-retailer-feed.ndjson';

export interface WriteDatasetOptions extends GenerateOptions {
  /** Directory to write into; created if missing. Existing files are replaced. */
  dir: string;
}

export interface WrittenDataset {
  catalogue: { path: string; records: number };
  feed: { path: string; lines: number; matched: number; unmatched: number };
}

/** Lines are buffered into chunks of this many before a write: far fewer syscalls. */
const CHUNK_LINES = 500;

async function writeLines(path: string, lines: Iterable<unknown>): Promise<number> {
  const out = createWriteStream(path, { encoding: 'utf8' });
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined); // observed below via race; keeps an early error from being unhandled
  let count = 0;
  let chunk: string[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const ok = out.write(chunk.join(''));
    chunk = [];
    if (!ok) await Promise.race([once(out, 'drain'), failed]);
  };
  for (const line of lines) {
    chunk.push(JSON.stringify(line) + '\n');
    count++;
    if (chunk.length >= CHUNK_LINES) await flush();
  }
  await flush();
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
  return count;
}

/** Writes catalogue.ndjson and au-retailer-feed.ndjson into `dir` in one generation pass. */
export async function writeDataset(options: WriteDatasetOptions): Promise<WrittenDataset> {
  const run = startCatalogueRun(options);
  await mkdir(options.dir, { recursive: true });
  const cataloguePath = join(options.dir, CATALOGUE_FILE);
  const feedPath = join(options.dir, FEED_FILE);
  const feed = new FeedCollector();
  function* records() {
    for (const entry of run.entries) {
      feed.add(entry.feed);
      yield entry.record;
    }
  }
  const written = await writeLines(cataloguePath, records());
  const { lines, matched, unmatched } = feed.finish(run);
  await writeLines(feedPath, lines);
  return {
    catalogue: { path: cataloguePath, records: written },
    feed: { path: feedPath, lines: lines.length, matched, unmatched },
  };
}
