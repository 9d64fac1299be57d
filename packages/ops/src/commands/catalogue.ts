import { resolve } from 'node:path';
import { MAX_COUNT, MAX_SEED, writeDataset } from '@fragrance/dataset';
import { parseOptions, UsageError, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { importCatalogue, rollback, versions } from './catalogue-import.ts';
import { ingest, status } from './catalogue-ingest.ts';

const DEFAULT_COUNT = 75_000;
const DEFAULT_SEED = 42;
const DEFAULT_OUT = 'data/generated';

/** A whole number within bounds, or a usage error naming the option. */
function integerOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new UsageError(`--${name} must be from ${min} to ${max}, got ${raw}`);
  return value;
}

const generate: Command = {
  summary: 'Write a deterministic synthetic catalogue (NDJSON) and AU retailer feed',
  usage: `catalogue generate [--count ${DEFAULT_COUNT}] [--seed ${DEFAULT_SEED}] [--out ${DEFAULT_OUT}]`,
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, {
      count: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
    });
    const count = integerOption('count', values.count, DEFAULT_COUNT, 1, MAX_COUNT);
    const seed = integerOption('seed', values.seed, DEFAULT_SEED, 0, MAX_SEED);
    if (values.out?.trim() === '') throw new UsageError('--out must be a directory path');
    const dir = resolve(values.out ?? DEFAULT_OUT);
    const started = performance.now();
    const written = await writeDataset({ dir, count, seed });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    ctx.stdout.write(
      [
        `catalogue: ${written.catalogue.records} records → ${written.catalogue.path}`,
        `au feed:   ${written.feed.lines} lines (${written.feed.matched} matching a record, ${written.feed.unmatched} matching none) → ${written.feed.path}`,
        `seed ${seed}, ${seconds} s`,
      ].join('\n') + '\n',
    );
  },
};

/** `catalogue` commands: dataset generation (and, later, ingest). */
export const catalogueGroup: CommandGroup = {
  summary: 'Catalogue data: generate the synthetic dataset, ingest or import it, show, list and roll back index versions',
  commands: { generate, ingest, import: importCatalogue, status, versions, rollback },
};
