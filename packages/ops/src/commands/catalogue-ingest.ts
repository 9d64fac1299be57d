import { resolve } from 'node:path';
import { catalogueStatus, ingestCatalogue, type IngestResult } from '@fragrance/search';
import { parseOptions, UsageError, wholeNumberOption, type Command, type CommandContext } from '../command.ts';
import { catalogueReport, withCatalogue } from '../elasticsearch.ts';
import { progressReporter } from '../progress.ts';

const DEFAULT_FILE = 'data/generated/catalogue.ndjson';

/**
 * What an ingest or import did: the first `listed` refused lines on stderr (the rest counted),
 * then `summary`, the alias swap and the versions deleted on stdout.
 */
export function reportIngest(
  ctx: CommandContext,
  result: IngestResult,
  alias: string,
  { refused, listed, summary }: { refused: 'skipped' | 'rejected'; listed: number; summary: string[] },
): void {
  for (const skip of result.skipped.slice(0, listed)) ctx.stderr.write(`${refused} line ${skip.line}: ${skip.reason}\n`);
  if (result.skipped.length > listed) ctx.stderr.write(`… and ${result.skipped.length - listed} more ${refused} lines\n`);
  ctx.stdout.write(
    [
      ...summary,
      `alias ${alias} → ${result.index}${result.previous.length ? ` (was ${result.previous.join(', ')})` : ''}`,
      ...(result.deleted.length ? [`deleted old versions: ${result.deleted.join(', ')}`] : []),
    ].join('\n') + '\n',
  );
}

export const ingest: Command = {
  summary: 'Build a new catalogue index from NDJSON, verify it, swap the alias atomically (refused if it shrinks the catalogue)',
  usage: `catalogue ingest [--file ${DEFAULT_FILE}] [--alias fragrances] [--concurrency 3] [--batch-size 1000] [--replicas 0] [--keep 1] [--allow-shrink]`,
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, {
      file: { type: 'string' },
      alias: { type: 'string' },
      concurrency: { type: 'string' },
      'batch-size': { type: 'string' },
      replicas: { type: 'string' },
      keep: { type: 'string' },
      'allow-shrink': { type: 'boolean' },
    });
    const file = resolve(values.file ?? DEFAULT_FILE);
    const concurrency = wholeNumberOption('--concurrency', values.concurrency, 1, 16) ?? 3;
    const batchSize = wholeNumberOption('--batch-size', values['batch-size'], 1, 10_000) ?? 1000;
    const replicas = wholeNumberOption('--replicas', values.replicas, 0, 5) ?? 0;
    const keepVersions = wholeNumberOption('--keep', values.keep, 0, 10) ?? 1;
    await withCatalogue(ctx, values.alias, { requestTimeout: 120_000 }, async (client, alias) => {
      const progress = progressReporter(ctx, 'ingest', 'read', ['indexed', 'skipped']);
      try {
        const result = await ingestCatalogue({
          client,
          alias,
          file,
          concurrency,
          batchSize,
          replicas,
          keepVersions,
          onProgress: (p) => progress.update({ done: p.read, total: p.total, counts: { indexed: p.indexed, skipped: p.skipped } }),
          guard: { allowShrink: values['allow-shrink'] ?? false },
          carryForward: true,
        });
        progress.stop();
        reportIngest(ctx, result, alias, {
          refused: 'skipped',
          listed: 20,
          summary: [
            `indexed ${result.indexed} records into ${result.index} in ${result.seconds} s (${Math.round(result.indexed / result.seconds)} docs/s)`,
            `skipped ${result.skipped.length} bad records`,
          ],
        });
      } catch (error) {
        progress.stop();
        const code = (error as { code?: string }).code;
        if (code === 'ENOENT') throw new UsageError(`--file ${file} does not exist (run: npm run ops -- catalogue generate)`);
        throw error;
      }
    });
  },
};

export const status = catalogueReport(
  'Where the catalogue alias points, how many documents, whether the index fits this code',
  'catalogue status [--alias fragrances] [--json]',
  catalogueStatus,
  (result, alias) =>
    result.index === null
      ? `alias ${alias} does not exist: run catalogue ingest\n`
      : `alias ${alias} → ${result.index}: ${result.documents} documents, schema version ${result.schema_version ?? 'none'} (${result.current ? 'current' : `stale: this code needs ${result.expected_schema_version}; run catalogue ingest`})\n`,
);
