import { resolve } from 'node:path';
import { MAX_COUNT, MAX_SEED, writeDataset } from '@fragrance/dataset';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext, type CommandGroup } from '../command.ts';
import { importCatalogue, rollback, versions } from './catalogue-import.ts';
import { ingest, status } from './catalogue-ingest.ts';

const DEFAULT_COUNT = 75_000;
const DEFAULT_SEED = 42;
const DEFAULT_OUT = 'data/generated';

const generate: Command = {
  summary: 'Write a deterministic synthetic catalogue (NDJSON) and AU retailer feed',
  usage: `catalogue generate [--count ${DEFAULT_COUNT}] [--seed ${DEFAULT_SEED}] [--out ${DEFAULT_OUT}]`,
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, {
      count: { type: 'string' },
      seed: { type: 'string' },
      out: { type: 'string' },
    });
    const count = wholeNumberOption('--count', values.count, 1, MAX_COUNT) ?? DEFAULT_COUNT;
    const seed = wholeNumberOption('--seed', values.seed, 0, MAX_SEED) ?? DEFAULT_SEED;
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
