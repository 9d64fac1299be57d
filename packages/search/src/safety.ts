import { errors, type Client } from '@elastic/elasticsearch';
import { aliasTargets, listVersions, swapAlias } from './indices.ts';
import { INDEX_SCHEMA_VERSION } from './mapping.ts';

/** When an ingest may replace the live catalogue (ops: ingest and import pass one; --allow-shrink disables it). */
export interface SwapGuard {
  /** Swap anyway (the operator said --allow-shrink). */
  allowShrink: boolean;
  /** Smallest new/live document ratio swapped without asking (default 0.9). */
  minLiveRatio?: number;
  /** Largest share of rejected lines swapped without asking (default 0.01). */
  maxRejectedRatio?: number;
}

export const DEFAULT_MIN_LIVE_RATIO = 0.9;
export const DEFAULT_MAX_REJECTED_RATIO = 0.01;

/** The new index was built but not swapped in: the live catalogue stays as it was. */
export class SwapRefusedError extends Error {
  readonly code = 'swap_refused';
}

/** Documents behind the alias now, or undefined before the first ingest. */
async function liveCount(client: Client, alias: string): Promise<number | undefined> {
  if ((await aliasTargets(client, alias)).length === 0) return undefined;
  try {
    return (await client.count({ index: alias })).count;
  } catch (error) {
    if (error instanceof errors.ResponseError && error.statusCode === 404) return undefined;
    throw error;
  }
}

/**
 * Throws SwapRefusedError when swapping would shrink the live catalogue below `minLiveRatio` of
 * its size, or when more than `maxRejectedRatio` of the lines were rejected, unless allowShrink.
 * A 7-line file with 3 good records never replaces 75,000 records by accident.
 */
export async function checkSwap(
  client: Client,
  alias: string,
  built: { indexed: number; rejected: number },
  guard: SwapGuard,
): Promise<void> {
  if (guard.allowShrink) return;
  const minRatio = guard.minLiveRatio ?? DEFAULT_MIN_LIVE_RATIO;
  const maxRejected = guard.maxRejectedRatio ?? DEFAULT_MAX_REJECTED_RATIO;
  const lines = built.indexed + built.rejected;
  const problems: string[] = [];
  if (lines > 0 && built.rejected / lines > maxRejected) {
    problems.push(`${built.rejected} of ${lines} lines were rejected (more than ${Math.round(maxRejected * 1000) / 10} %)`);
  }
  const live = await liveCount(client, alias);
  if (live !== undefined && built.indexed < live * minRatio) {
    problems.push(`the new index has ${built.indexed} records, the live one ${live} (less than ${Math.round(minRatio * 100)} %)`);
  }
  if (problems.length > 0) {
    throw new SwapRefusedError(
      `not swapped: ${problems.join('; ')}. The live catalogue is unchanged; re-run with --allow-shrink if this is intended.`,
    );
  }
}

export interface CatalogueVersion {
  index: string;
  documents: number;
  schema_version: number | null;
  /** The alias points here. */
  live: boolean;
}

/** Every kept version of the catalogue behind `alias`, oldest first, with its size and whether it is live. */
export async function catalogueVersions(client: Client, alias: string): Promise<CatalogueVersion[]> {
  const [versions, live] = await Promise.all([listVersions(client, alias), aliasTargets(client, alias)]);
  if (versions.length === 0) return [];
  const mappings = await client.indices.getMapping({ index: versions.join(',') });
  const countOf = new Map<string, number>();
  for (const index of versions) countOf.set(index, (await client.count({ index })).count);
  return versions.map((index) => {
    const meta = mappings[index]?.mappings?._meta as { schema_version?: unknown } | undefined;
    return {
      index,
      documents: countOf.get(index) ?? 0,
      schema_version: typeof meta?.schema_version === 'number' ? meta.schema_version : null,
      live: live.includes(index),
    };
  });
}

export class RollbackError extends Error {
  readonly code = 'rollback_refused';
}

/**
 * Points the alias back at `to`, or at the newest kept version older than the live one, in one
 * atomic alias update. A version built for another mapping (schema version) is refused: the
 * running code could not query it. Returns the index now live and the one it replaced.
 */
export async function rollbackCatalogue(client: Client, alias: string, to?: string): Promise<{ live: string; previous: string[] }> {
  const versions = await catalogueVersions(client, alias);
  const current = versions.filter((v) => v.live).at(-1);
  const target =
    to !== undefined
      ? versions.find((v) => v.index === to)
      : versions.filter((v) => !v.live && (!current || v.index < current.index)).at(-1);
  if (!target) {
    throw new RollbackError(
      to !== undefined ? `${to} is not a kept version of ${alias}` : `no older version of ${alias} is kept to roll back to`,
    );
  }
  if (target.live) throw new RollbackError(`${target.index} is already live`);
  if (target.schema_version !== INDEX_SCHEMA_VERSION) {
    throw new RollbackError(
      `${target.index} has schema version ${target.schema_version ?? 'none'}; this code needs ${INDEX_SCHEMA_VERSION}`,
    );
  }
  const previous = await swapAlias(client, alias, target.index);
  return { live: target.index, previous };
}
