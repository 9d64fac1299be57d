/**
 * The catalogue's generation, which every cached answer is keyed by: the index the alias points
 * at plus an enrichment counter in Redis. Every writer of indexed rows (the worker's enrichment
 * batches, ingest and rollback after a swap) increments the counter once its writes are
 * searchable, and so does the first catalogue instance that sees the alias point somewhere new
 * (a swap made by hand), so the counter alone tells a reader that something changed.
 *
 * - The catalogue service holds `<indices>#<counter>` and marks every cacheable answer with the
 *   counter it was computed under (CATALOGUE_GENERATION_HEADER, `generationMark`; internal: the
 *   edge removes it).
 * - The gateway reads the counter with each request's admission (same round trip) and keeps an
 *   answer only when the catalogue computed it under that very counter of the very same key (a
 *   gateway and a catalogue configured with different JOBS_PREFIX or CATALOGUE_ALIAS never agree,
 *   so the gateway then keeps nothing rather than something it cannot see change).
 *
 * The counter lives beside the worker's run summaries, `<JOBS_PREFIX>:catalogue-generation:<alias>`:
 * the catalogue and the gateway are given the same JOBS_PREFIX and CATALOGUE_ALIAS as the worker.
 */

/** The Redis commands used (ioredis's Redis satisfies it). */
export interface GenerationStore {
  get: (key: string) => Promise<string | null>;
  incr: (key: string) => Promise<number>;
  publish: (channel: string, message: string) => Promise<number>;
  /** SET … GET: stores the value and answers the one it replaced, atomically. */
  set: (key: string, value: string, get: 'GET') => Promise<string | null>;
}

/** Where a catalogue's enrichment generation is kept: who writes it and who reads it agree on both. */
export interface GenerationScope {
  /** The worker's JOBS_PREFIX (BullMQ's prefix, without the trailing colon). */
  prefix: string;
  alias: string;
}

/** The response header that carries the generation an answer was computed under (catalogue → gateway only). */
export const CATALOGUE_GENERATION_HEADER = 'x-catalogue-generation';

export const catalogueGenerationKey = ({ prefix, alias }: GenerationScope): string => `${prefix}:catalogue-generation:${alias}`;

/** The index names the alias pointed at when the counter was last bumped for a swap. */
const aliasTargetsKey = (scope: GenerationScope): string => `${catalogueGenerationKey(scope)}:indices`;

/**
 * Called after rows changed and became searchable (refreshed), or after the alias swapped;
 * returns the new generation. The new value is also published on a channel of the same name, so
 * readers that hold the generation in process (the catalogue's response cache) drop it at once
 * instead of reading it per request.
 */
export async function bumpCatalogueGeneration(redis: GenerationStore, scope: GenerationScope): Promise<number> {
  const key = catalogueGenerationKey(scope);
  const generation = await redis.incr(key);
  await redis.publish(key, String(generation));
  return generation;
}

/** The current generation ("0" before any change was recorded). */
export async function readCatalogueGeneration(redis: GenerationStore, scope: GenerationScope): Promise<string> {
  return (await redis.get(catalogueGenerationKey(scope))) ?? '0';
}

/**
 * Records the indices the alias points at now (comma-joined) and bumps the generation when they
 * differ from the ones recorded before: a swap nobody announced (made by hand) then reaches every
 * reader of the counter, the gateway's edge cache included. SET … GET makes the comparison
 * atomic, so of several catalogue instances noticing the same swap only one bumps. Returns the
 * new generation when it bumped.
 */
export async function recordAliasTargets(redis: GenerationStore, scope: GenerationScope, indices: string): Promise<number | undefined> {
  const before = await redis.set(aliasTargetsKey(scope), indices, 'GET');
  return before === indices ? undefined : bumpCatalogueGeneration(redis, scope);
}

/** What CATALOGUE_GENERATION_HEADER carries: the counter's key and its value, `<key>=<counter>`. */
export const generationMark = (scope: GenerationScope, counter: string): string => `${catalogueGenerationKey(scope)}=${counter}`;

/** The counter part of a generation `<indices>#<counter>` (undefined for anything else). */
export function enrichmentGenerationOf(generation: string | undefined): string | undefined {
  if (generation === undefined) return undefined;
  const at = generation.lastIndexOf('#');
  return at < 0 ? undefined : generation.slice(at + 1);
}
