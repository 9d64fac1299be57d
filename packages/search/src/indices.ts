import { randomBytes } from 'node:crypto';
import { errors, type Client } from '@elastic/elasticsearch';
import { FRAGRANCE_MAPPING, INDEX_SCHEMA_VERSION, loadingSettings, type IndexSettingsOptions } from './mapping.ts';
import { suggestAliasOf, suggestIndexOf } from './suggest.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `<alias>-v<UTC yyyymmddhhmmssmmm>-<4 hex>`: sorts by creation time, never collides. */
export function versionName(alias: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 17);
  return `${alias}-v${stamp}-${randomBytes(2).toString('hex')}`;
}

export function isVersionOf(alias: string, index: string): boolean {
  return new RegExp(`^${escape(alias)}-v\\d{17}-[0-9a-f]{4}$`).test(index);
}

/** Creates an empty index version for `alias` with the strict mapping, set up for bulk loading. */
export async function createVersionedIndex(client: Client, alias: string, options: IndexSettingsOptions = {}): Promise<string> {
  const index = versionName(alias);
  await client.indices.create({ index, settings: loadingSettings(options), mappings: FRAGRANCE_MAPPING });
  return index;
}

/** Indices the alias points at now (normally one), or [] if the alias does not exist. */
export async function aliasTargets(client: Client, alias: string): Promise<string[]> {
  try {
    const response = await client.indices.getAlias({ name: alias });
    return Object.keys(response).sort();
  } catch (error) {
    if (error instanceof errors.ResponseError && error.statusCode === 404) return [];
    throw error;
  }
}

/** The index the alias points at, or undefined before the first ingest. */
export async function currentIndex(client: Client, alias: string): Promise<string | undefined> {
  return (await aliasTargets(client, alias)).at(-1);
}

/**
 * Points `alias` at `index` and away from everything else in one atomic update, so a
 * search sees either the old or the new catalogue, never none. Returns the old targets.
 */
export async function swapAlias(client: Client, alias: string, index: string): Promise<string[]> {
  const previous = await aliasTargets(client, alias);
  const move = (name: string, from: string[], to: string) => [
    ...from.filter((old) => old !== to).map((old) => ({ remove: { index: old, alias: name } })),
    { add: { index: to, alias: name } },
  ];
  // The suggestion index of the version (when it has one) moves in the same atomic update.
  const suggestAlias = suggestAliasOf(alias);
  const suggest = suggestIndexOf(index);
  const withSuggest = await client.indices.exists({ index: suggest });
  await client.indices.updateAliases({
    actions: [
      ...move(alias, previous, index),
      ...(withSuggest ? move(suggestAlias, await aliasTargets(client, suggestAlias), suggest) : []),
    ],
  });
  return previous.filter((old) => old !== index);
}

/** Every version index of `alias`, oldest first. */
export async function listVersions(client: Client, alias: string): Promise<string[]> {
  const response = await client.indices.get({
    index: `${alias}-v*`,
    allow_no_indices: true,
    ignore_unavailable: true,
    expand_wildcards: 'open',
  });
  return Object.keys(response)
    .filter((index) => isVersionOf(alias, index))
    .sort();
}

/**
 * Deletes versions of `alias` older than the one it points at, keeping the `keep` newest of
 * them (a rollback target). Newer versions (an ingest still loading) are never touched.
 * Returns the deleted indices.
 */
export async function pruneVersions(client: Client, alias: string, keep = 1): Promise<string[]> {
  const current = await currentIndex(client, alias);
  if (current === undefined) return [];
  const older = (await listVersions(client, alias)).filter((index) => index < current);
  const doomed = older.slice(0, Math.max(0, older.length - keep));
  if (doomed.length > 0)
    await client.indices.delete({ index: doomed.flatMap((v) => [v, suggestIndexOf(v)]).join(','), ignore_unavailable: true });
  return doomed;
}

export interface CatalogueStatus {
  alias: string;
  /** The index behind the alias, or null before the first ingest. */
  index: string | null;
  documents: number;
  /** schema_version recorded in the index mapping (null for an index without one). */
  schema_version: number | null;
  expected_schema_version: number;
  /** The alias exists and its index matches this code's mapping and folding. */
  current: boolean;
}

/** What the alias points at, and whether that index still fits the code. */
export async function catalogueStatus(client: Client, alias: string): Promise<CatalogueStatus> {
  const index = (await currentIndex(client, alias)) ?? null;
  if (index === null) {
    return { alias, index, documents: 0, schema_version: null, expected_schema_version: INDEX_SCHEMA_VERSION, current: false };
  }
  const mapping = await client.indices.getMapping({ index });
  const meta = mapping[index]?.mappings?._meta as { schema_version?: unknown } | undefined;
  const version = typeof meta?.schema_version === 'number' ? meta.schema_version : null;
  const { count } = await client.count({ index });
  return {
    alias,
    index,
    documents: count,
    schema_version: version,
    expected_schema_version: INDEX_SCHEMA_VERSION,
    current: version === INDEX_SCHEMA_VERSION,
  };
}
