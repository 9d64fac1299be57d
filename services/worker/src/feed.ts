import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { AuRetailerFeedLine } from '@fragrance/contracts';
import { matchKey } from '@fragrance/vocabulary';

/** The AU retailer feed, indexed by the key a feed line shares with its catalogue record. */
export interface FeedIndex {
  byKey: Map<string, AuRetailerFeedLine[]>;
  lines: number;
  /** Lines that failed validation and were skipped. */
  invalid: number;
}

export function indexFeed(lines: Iterable<unknown>): FeedIndex {
  const byKey = new Map<string, AuRetailerFeedLine[]>();
  let count = 0;
  let invalid = 0;
  for (const raw of lines) {
    const parsed = AuRetailerFeedLine.safeParse(raw);
    if (!parsed.success) {
      invalid++;
      continue;
    }
    count++;
    const line = parsed.data;
    const key = matchKey(line.brand, line.name, line.concentration);
    const list = byKey.get(key);
    if (list) list.push(line);
    else byKey.set(key, [line]);
  }
  return { byKey, lines: count, invalid };
}

async function readNdjson(path: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      out.push(null); // counted as invalid by indexFeed
    }
  }
  return out;
}

/**
 * Loads the feed file, re-reading it only when it changed (size or mtime), so every batch of a
 * run shares one parsed copy per worker. Undefined when the file does not exist: without a feed
 * the AU enricher leaves rows alone rather than marking everything unavailable.
 */
export function feedLoader(path: string): () => Promise<FeedIndex | undefined> {
  let cached: { stamp: string; index: Promise<FeedIndex> } | undefined;
  return async () => {
    let stamp: string;
    try {
      const info = await stat(path);
      stamp = `${info.size}:${info.mtimeMs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (cached?.stamp !== stamp) {
      const index = readNdjson(path).then(indexFeed);
      cached = { stamp, index };
      index.catch(() => {
        if (cached?.index === index) cached = undefined;
      });
    }
    return cached.index;
  };
}

/** Feed lines that match no catalogue row: a count and a short sample for `enrich status`. */
export function unmatchedOffers(feed: FeedIndex, catalogueKeys: ReadonlySet<string>, sampleSize = 10): { count: number; sample: string[] } {
  let count = 0;
  const sample: string[] = [];
  for (const [key, lines] of feed.byKey) {
    if (catalogueKeys.has(key)) continue;
    count += lines.length;
    for (const line of lines) {
      if (sample.length >= sampleSize) break;
      sample.push(`${line.retailer}: ${line.brand} — ${line.name} (${line.concentration})`);
    }
  }
  return { count, sample };
}
