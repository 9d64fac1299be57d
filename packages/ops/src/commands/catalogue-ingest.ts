import { resolve } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import cliProgress from 'cli-progress';
import { z } from 'zod';
import { catalogueAlias, httpUrl, parseConfig } from '@fragrance/config';
import { catalogueStatus, ingestCatalogue, type IngestProgress } from '@fragrance/search';
import { parseOptions, UsageError, type Command, type CommandContext } from '../command.ts';

/** What `catalogue ingest` reads from the environment (same names as the catalogue service). */
export const IngestConfig = z.object({
  ELASTICSEARCH_URL: httpUrl().default('http://127.0.0.1:9200'),
  CATALOGUE_ALIAS: catalogueAlias(),
});

const DEFAULT_FILE = 'data/generated/catalogue.ndjson';
/** Skipped records listed one per line; the rest are summarised. */
const LISTED_SKIPS = 20;

function intOption(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

/** A progress bar on a terminal, a line every 10% elsewhere (CI logs stay short). */
function progressReporter(ctx: CommandContext): { update: (p: IngestProgress) => void; stop: () => void } {
  const tty = (ctx.stderr as NodeJS.WriteStream).isTTY;
  if (tty) {
    const bar = new cliProgress.SingleBar(
      {
        stream: ctx.stderr,
        format: 'ingest [{bar}] {percentage}% | {value}/{total} read | {indexed} indexed | {skipped} skipped | {eta}s',
        hideCursor: true,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update: (p) => {
        if (!started) {
          bar.start(p.total ?? p.read, 0, { indexed: 0, skipped: 0 });
          started = true;
        }
        bar.update(p.read, { indexed: p.indexed, skipped: p.skipped });
      },
      stop: () => started && bar.stop(),
    };
  }
  let nextTenth = 1;
  return {
    update: (p) => {
      if (!p.total) return;
      const tenth = Math.floor((p.read * 10) / p.total);
      if (tenth < nextTenth) return;
      ctx.stderr.write(`ingest: ${p.read}/${p.total} read, ${p.indexed} indexed, ${p.skipped} skipped\n`);
      nextTenth = tenth + 1;
    },
    stop: () => undefined,
  };
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
    const config = parseConfig(IngestConfig, ctx.env);
    const alias = values.alias ?? config.CATALOGUE_ALIAS;
    if (!IngestConfig.shape.CATALOGUE_ALIAS.safeParse(alias).success)
      throw new UsageError(`--alias must be a lower-case index alias name, got "${alias}"`);
    const file = resolve(values.file ?? DEFAULT_FILE);
    const concurrency = intOption('concurrency', values.concurrency, 3, 1, 16);
    const batchSize = intOption('batch-size', values['batch-size'], 1000, 1, 10_000);
    const replicas = intOption('replicas', values.replicas, 0, 0, 5);
    const keepVersions = intOption('keep', values.keep, 1, 0, 10);

    const client = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 120_000 });
    const progress = progressReporter(ctx);
    try {
      const result = await ingestCatalogue({
        client,
        alias,
        file,
        concurrency,
        batchSize,
        replicas,
        keepVersions,
        onProgress: progress.update,
        guard: { allowShrink: values['allow-shrink'] ?? false },
        carryForward: true,
      });
      progress.stop();
      for (const skip of result.skipped.slice(0, LISTED_SKIPS)) ctx.stderr.write(`skipped line ${skip.line}: ${skip.reason}\n`);
      if (result.skipped.length > LISTED_SKIPS) ctx.stderr.write(`… and ${result.skipped.length - LISTED_SKIPS} more skipped lines\n`);
      ctx.stdout.write(
        [
          `indexed ${result.indexed} records into ${result.index} in ${result.seconds} s (${Math.round(result.indexed / result.seconds)} docs/s)`,
          `skipped ${result.skipped.length} bad records`,
          `alias ${alias} → ${result.index}${result.previous.length ? ` (was ${result.previous.join(', ')})` : ''}`,
          ...(result.deleted.length ? [`deleted old versions: ${result.deleted.join(', ')}`] : []),
        ].join('\n') + '\n',
      );
    } catch (error) {
      progress.stop();
      const code = (error as { code?: string }).code;
      if (code === 'ENOENT') throw new UsageError(`--file ${file} does not exist (run: npm run ops -- catalogue generate)`);
      throw error;
    } finally {
      await client.close();
    }
  },
};

export const status: Command = {
  summary: 'Where the catalogue alias points, how many documents, whether the index fits this code',
  usage: 'catalogue status [--alias fragrances] [--json]',
  async run(ctx: CommandContext) {
    const { values } = parseOptions(ctx.argv, { alias: { type: 'string' }, json: { type: 'boolean' } });
    const config = parseConfig(IngestConfig, ctx.env);
    const alias = values.alias ?? config.CATALOGUE_ALIAS;
    const client = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 10_000, maxRetries: 0 });
    try {
      const result = await catalogueStatus(client, alias);
      if (values.json) {
        ctx.stdout.write(`${JSON.stringify(result)}\n`);
        return;
      }
      ctx.stdout.write(
        result.index === null
          ? `alias ${alias} does not exist: run catalogue ingest\n`
          : `alias ${alias} → ${result.index}: ${result.documents} documents, schema version ${result.schema_version ?? 'none'} (${result.current ? 'current' : `stale: this code needs ${result.expected_schema_version}; run catalogue ingest`})\n`,
      );
    } finally {
      await client.close();
    }
  },
};
