/**
 * The catalogue's enrichment generation: a counter in Redis that every writer of indexed rows
 * (the worker's enrichment batches) increments once its writes are searchable. Readers that
 * cache answers (the catalogue service) key them by it together with the index the alias points
 * at, so a changed row is never served from a cache filled before the change.
 *
 * The key lives beside the worker's run summaries, `<JOBS_PREFIX>:catalogue-generation:<alias>`:
 * the catalogue service is given the same JOBS_PREFIX and CATALOGUE_ALIAS as the worker.
 */

/** The Redis commands used (ioredis's Redis satisfies it). */
export interface GenerationStore {
  get: (key: string) => Promise<string | null>;
  incr: (key: string) => Promise<number>;
  publish: (channel: string, message: string) => Promise<number>;
}

/** Where a catalogue's enrichment generation is kept: who writes it and who reads it agree on both. */
export interface GenerationScope {
  /** The worker's JOBS_PREFIX (BullMQ's prefix, without the trailing colon). */
  prefix: string;
  alias: string;
}

export const catalogueGenerationKey = ({ prefix, alias }: GenerationScope): string => `${prefix}:catalogue-generation:${alias}`;

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
