import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateAuRetailerFeed, generateCatalogue } from './generate.ts';
import { CATALOGUE_FILE, FEED_FILE, writeDataset } from './write.ts';

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dataset-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

async function sha256(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

describe('writeDataset', () => {
  it('writes both files and reports their paths and counts', async () => {
    const dir = await tempDir();
    const written = await writeDataset({ dir: join(dir, 'nested'), count: 1000, seed: 3 });
    expect(written.catalogue.path).toBe(join(dir, 'nested', CATALOGUE_FILE));
    expect(written.feed.path).toBe(join(dir, 'nested', FEED_FILE));
    const catalogue = (await readFile(written.catalogue.path, 'utf8')).split('\n');
    expect(catalogue.pop()).toBe(''); // newline-terminated
    expect(catalogue).toHaveLength(1000);
    expect(written.catalogue.records).toBe(1000);
    const feed = (await readFile(written.feed.path, 'utf8')).trimEnd().split('\n');
    expect(feed).toHaveLength(written.feed.lines);
    expect(written.feed.matched + written.feed.unmatched).toBe(written.feed.lines);
  });

  it('is byte-identical for the same count and seed, and differs for another seed', async () => {
    const [a, b, c] = await Promise.all([tempDir(), tempDir(), tempDir()]);
    await writeDataset({ dir: a, count: 2000, seed: 42 });
    await writeDataset({ dir: b, count: 2000, seed: 42 });
    await writeDataset({ dir: c, count: 2000, seed: 43 });
    for (const file of [CATALOGUE_FILE, FEED_FILE]) {
      expect(await sha256(join(a, file))).toBe(await sha256(join(b, file)));
      expect(await sha256(join(a, file))).not.toBe(await sha256(join(c, file)));
    }
  });

  it('writes what generateCatalogue and generateAuRetailerFeed yield', async () => {
    const dir = await tempDir();
    await writeDataset({ dir, count: 600, seed: 11 });
    const catalogue = [...generateCatalogue({ count: 600, seed: 11 })].map((r) => JSON.stringify(r) + '\n').join('');
    expect(await readFile(join(dir, CATALOGUE_FILE), 'utf8')).toBe(catalogue);
    const feed = generateAuRetailerFeed({ count: 600, seed: 11 })
      .map((l) => JSON.stringify(l) + '\n')
      .join('');
    expect(await readFile(join(dir, FEED_FILE), 'utf8')).toBe(feed);
  });

  it('rejects a bad count or seed before writing anything', async () => {
    const dir = await tempDir();
    await expect(writeDataset({ dir: join(dir, 'x'), count: 0, seed: 1 })).rejects.toThrow(RangeError);
    await expect(writeDataset({ dir: join(dir, 'x'), count: 10, seed: -1 })).rejects.toThrow(RangeError);
    await expect(writeDataset({ dir: join(dir, 'x'), count: 1.5, seed: 1 })).rejects.toThrow(RangeError);
    expect(() => generateCatalogue({ count: Number.NaN, seed: 1 })).toThrow(RangeError);
    expect(() => generateAuRetailerFeed({ count: 10, seed: 2 ** 31 })).toThrow(RangeError);
    await expect(readFile(join(dir, 'x', CATALOGUE_FILE))).rejects.toThrow();
  });
});
