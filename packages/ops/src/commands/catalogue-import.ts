import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { catalogueVersions, ingestCatalogue, ndjsonLines, rollbackCatalogue } from '@fragrance/search';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext } from '../command.ts';
import { catalogueReport, withCatalogue } from '../elasticsearch.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../import/layouts.ts';
import { readCsv } from '../import/read.ts';
import { reportIngest } from './catalogue-ingest.ts';

export const importCatalogue: Command = {
  summary: 'Import a real catalogue (Fragrantica or Parfumo CSV, or our NDJSON) as a new version; refused if it shrinks the catalogue',
  usage: `catalogue import --format ${IMPORT_FORMATS.join('|')} <file> [--alias fragrances] [--keep 1] [--allow-shrink]`,
  async run(ctx: CommandContext) {
    const { values, positionals } = parseOptions(
      ctx.argv,
      { format: { type: 'string' }, alias: { type: 'string' }, keep: { type: 'string' }, 'allow-shrink': { type: 'boolean' } },
      true,
    );
    const format = values.format as ImportFormat | undefined;
    if (format === undefined || !IMPORT_FORMATS.includes(format))
      throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
    if (positionals.length !== 1 || !positionals[0]) throw new UsageError('give exactly one file to import');
    const file = resolve(positionals[0]);
    try {
      await access(file);
    } catch {
      throw new UsageError(`${file} does not exist or cannot be read`);
    }
    const keepVersions = wholeNumberOption('--keep', values.keep, 0, 10) ?? 1;
    await withCatalogue(ctx, values.alias, { requestTimeout: 120_000 }, async (client, alias) => {
      const lines = format === 'ndjson' ? ndjsonLines(file) : readCsv(file, format, new Date().toISOString());
      const result = await ingestCatalogue({ client, alias, lines, keepVersions, guard: { allowShrink: values['allow-shrink'] ?? false } });
      reportIngest(ctx, result, alias, {
        refused: 'rejected',
        listed: 50,
        summary: [
          `imported ${result.indexed} records into ${result.index} in ${result.seconds} s`,
          `rejected ${result.skipped.length} lines`,
        ],
      });
    });
  },
};

export const versions = catalogueReport(
  'List the kept versions of the catalogue index: size, schema version, which is live',
  'catalogue versions [--alias fragrances] [--json]',
  catalogueVersions,
  (list, alias) =>
    list.length === 0
      ? `no versions of ${alias}: run catalogue ingest\n`
      : list.map((v) => `${v.live ? '* ' : '  '}${v.index}  ${v.documents} documents  schema ${v.schema_version ?? 'none'}\n`).join(''),
);

export const rollback: Command = {
  summary: 'Point the alias back at the previous kept version (or --to <index>) in one atomic swap',
  usage: 'catalogue rollback [--to <index>] [--alias fragrances]',
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, { alias: { type: 'string' }, to: { type: 'string' } });
    await withCatalogue(ctx, values.alias, { requestTimeout: 30_000 }, async (client, alias) => {
      const result = await rollbackCatalogue(client, alias, values.to);
      ctx.stdout.write(`alias ${alias} → ${result.live}${result.previous.length ? ` (was ${result.previous.join(', ')})` : ''}\n`);
    });
  },
};
