import { Client, type ClientOptions } from '@elastic/elasticsearch';
import { z } from 'zod';
import { catalogueAlias, httpUrl, parseConfig } from '@fragrance/config';
import { parseOptions, UsageError, type Command, type CommandContext } from './command.ts';

/** What `catalogue` commands read from the environment (same names as the catalogue service). */
export const CatalogueConfig = z.object({
  ELASTICSEARCH_URL: httpUrl().default('http://127.0.0.1:9200'),
  CATALOGUE_ALIAS: catalogueAlias(),
});

/**
 * Opens Elasticsearch for one catalogue command and always closes it. The alias is `--alias`
 * when given (a usage error unless it is a valid alias name), else CATALOGUE_ALIAS.
 */
export async function withCatalogue<T>(
  ctx: CommandContext,
  givenAlias: string | undefined,
  options: Pick<ClientOptions, 'requestTimeout' | 'maxRetries'>,
  use: (client: Client, alias: string) => Promise<T>,
): Promise<T> {
  const config = parseConfig(CatalogueConfig, ctx.env);
  const alias = givenAlias ?? config.CATALOGUE_ALIAS;
  if (!CatalogueConfig.shape.CATALOGUE_ALIAS.safeParse(alias).success)
    throw new UsageError(`--alias must be a lower-case index alias name, got "${alias}"`);
  const client = new Client({ node: config.ELASTICSEARCH_URL, ...options });
  try {
    return await use(client, alias);
  } finally {
    await client.close();
  }
}

/** A read-only catalogue command (`[--alias fragrances] [--json]`): what `read` finds, as JSON or as `text`. */
export function catalogueReport<T>(
  summary: string,
  usage: string,
  read: (client: Client, alias: string) => Promise<T>,
  text: (result: T, alias: string) => string,
): Command {
  return {
    summary,
    usage,
    async run(ctx) {
      const { values } = parseOptions(ctx.argv, { alias: { type: 'string' }, json: { type: 'boolean' } });
      await withCatalogue(ctx, values.alias, { requestTimeout: 10_000, maxRetries: 0 }, async (client, alias) => {
        const result = await read(client, alias);
        ctx.stdout.write(values.json ? `${JSON.stringify(result)}\n` : text(result, alias));
      });
    },
  };
}
