import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { parseConfig } from '@fragrance/config';
import { catalogueVersions, ingestCatalogue, ndjsonLines, rollbackCatalogue, type IngestResult } from '@fragrance/search';
import { parseOptions, UsageError, type Command, type CommandContext } from '../command.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../import/layouts.ts';
import { readCsv } from '../import/read.ts';
import { IngestConfig } from './catalogue-ingest.ts';

/** Rejected lines listed one per line on stderr; the rest are counted. */
const LISTED_REJECTS = 50;

function aliasOption(ctx: CommandContext, given: string | undefined): { alias: string; url: string } {
  const config = parseConfig(IngestConfig, ctx.env);
  const alias = given ?? config.CATALOGUE_ALIAS;
  if (!IngestConfig.shape.CATALOGUE_ALIAS.safeParse(alias).success)
    throw new UsageError(`--alias must be a lower-case index alias name, got "${alias}"`);
  return { alias, url: config.ELASTICSEARCH_URL };
}

function report(ctx: CommandContext, result: IngestResult, alias: string): void {
  for (const skip of result.skipped.slice(0, LISTED_REJECTS)) ctx.stderr.write(`rejected line ${skip.line}: ${skip.reason}\n`);
  if (result.skipped.length > LISTED_REJECTS) ctx.stderr.write(`… and ${result.skipped.length - LISTED_REJECTS} more rejected lines\n`);
  ctx.stdout.write(
    [
      `imported ${result.indexed} records into ${result.index} in ${result.seconds} s`,
      `rejected ${result.skipped.length} lines`,
      `alias ${alias} → ${result.index}${result.previous.length ? ` (was ${result.previous.join(', ')})` : ''}`,
      ...(result.deleted.length ? [`deleted old versions: ${result.deleted.join(', ')}`] : []),
    ].join('\n') + '\n',
  );
}

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
    const keep = values.keep === undefined ? 1 : Number(values.keep);
    if (!Number.isInteger(keep) || keep < 0 || keep > 10)
      throw new UsageError(`--keep must be a whole number from 0 to 10, got "${values.keep ?? ''}"`);
    const { alias, url } = aliasOption(ctx, values.alias);
    const importedAt = new Date().toISOString();
    const lines = format === 'ndjson' ? ndjsonLines(file) : readCsv(file, format, importedAt);
    const client = new Client({ node: url, requestTimeout: 120_000 });
    try {
      const result = await ingestCatalogue({
        client,
        alias,
        lines,
        keepVersions: keep,
        guard: { allowShrink: values['allow-shrink'] ?? false },
      });
      report(ctx, result, alias);
    } finally {
      await client.close();
    }
  },
};

export const versions: Command = {
  summary: 'List the kept versions of the catalogue index: size, schema version, which is live',
  usage: 'catalogue versions [--alias fragrances] [--json]',
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, { alias: { type: 'string' }, json: { type: 'boolean' } });
    const { alias, url } = aliasOption(ctx, values.alias);
    const client = new Client({ node: url, requestTimeout: 10_000, maxRetries: 0 });
    try {
      const list = await catalogueVersions(client, alias);
      if (values.json) {
        ctx.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      if (list.length === 0) ctx.stdout.write(`no versions of ${alias}: run catalogue ingest\n`);
      for (const v of list)
        ctx.stdout.write(`${v.live ? '* ' : '  '}${v.index}  ${v.documents} documents  schema ${v.schema_version ?? 'none'}\n`);
    } finally {
      await client.close();
    }
  },
};

export const rollback: Command = {
  summary: 'Point the alias back at the previous kept version (or --to <index>) in one atomic swap',
  usage: 'catalogue rollback [--to <index>] [--alias fragrances]',
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, { alias: { type: 'string' }, to: { type: 'string' } });
    const { alias, url } = aliasOption(ctx, values.alias);
    const client = new Client({ node: url, requestTimeout: 30_000 });
    try {
      const result = await rollbackCatalogue(client, alias, values.to);
      ctx.stdout.write(`alias ${alias} → ${result.live}${result.previous.length ? ` (was ${result.previous.join(', ')})` : ''}\n`);
    } finally {
      await client.close();
    }
  },
};
