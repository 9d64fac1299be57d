import type { Client } from '@elastic/elasticsearch';
import type { Logger } from '@fragrance/http';
import {
  catalogueGenerationKey,
  enrichmentGenerationOf,
  readCatalogueGeneration,
  recordAliasTargets,
  type GenerationScope,
  type GenerationStore,
} from '@fragrance/response-cache';
import { aliasTargets } from '@fragrance/search';
import { freshRead } from './fresh-read.ts';

/** The counter of a generation `<indices>#<counter>`, as a number (NaN for anything else). */
const counterOf = (generation: string | undefined): number => Number(enrichmentGenerationOf(generation) ?? Number.NaN);

/**
 * What the watcher needs of a Redis connection in subscriber mode (ioredis's Redis satisfies
 * it): a connection of its own, since a subscribed connection runs no other command.
 */
export interface GenerationSubscriber {
  subscribe: (channel: string) => Promise<unknown>;
  on: (event: 'message' | 'ready' | 'close', listener: (...args: string[]) => void) => unknown;
  /** ioredis's connection status: 'ready' once commands can be sent. */
  readonly status: string;
}

export interface GenerationSource {
  /**
   * The catalogue's generation now; undefined while it cannot be known (answer uncached). With
   * `atLeast`, a counter the caller has already seen in Redis (the gateway's edge cache forwards
   * the one it read for the request): a held generation with an older counter is read again
   * first, so the bump's message may still be on its way without the answer being stale.
   */
  current: (atLeast?: number) => Promise<string | undefined>;
  /**
   * The generation the last successful read found and when (ms since the epoch): until then
   * every answer cached under it was known to be current (stale-if-error measures from there).
   */
  lastKnown: () => { generation: string; at: number } | undefined;
  /** Stops the periodic check (the subscriber connection belongs to the caller). */
  close: () => void;
}

/**
 * The catalogue's generation: the index the alias points at and the enrichment generation every
 * writer bumps (`bumpCatalogueGeneration`: the worker after each batch, ingest and rollback
 * after a swap), e.g. `fragrances-v2026…#7`.
 *
 * Without a subscriber both are read for every request (coalesced, see freshRead): a round trip
 * to Elasticsearch and Redis on every cache hit. With one, the value is held in process and read
 * again only when a bump is published on the generation's channel (requests arriving after the
 * message wait for the new value, never answer from the old one), every `checkMs` in the
 * background (the bound for an alias swapped by hand without a bump), and when the subscriber
 * reconnects. While the subscriber is not connected, a missed message is possible, so every
 * request reads the generation itself as without one.
 *
 * When a read finds the alias pointing at other indices than this instance last saw, it records
 * them (`recordAliasTargets`), which bumps the counter if no instance has yet: a swap made by
 * hand then reaches every reader of the counter, the gateway's edge cache included, within the
 * check interval.
 */
export function generationSource({
  elasticsearch,
  redis,
  subscriber,
  scope,
  logger,
  checkMs = 1_000,
}: {
  elasticsearch: Client;
  redis: GenerationStore;
  subscriber?: GenerationSubscriber;
  scope: GenerationScope;
  logger: Logger;
  checkMs?: number;
}): GenerationSource {
  const { read, lastKnown } = generationReader({ elasticsearch, redis, scope, logger });
  if (!subscriber) return { current: read, lastKnown, close: () => undefined };
  const { current, close } = heldGeneration(read, { subscriber, channel: catalogueGenerationKey(scope), logger, checkMs });
  return { current, lastKnown, close };
}

/**
 * Reads the generation from Elasticsearch and Redis (coalesced, see freshRead), records alias
 * targets that changed, and remembers the last generation found.
 */
function generationReader({
  elasticsearch,
  redis,
  scope,
  logger,
}: {
  elasticsearch: Client;
  redis: GenerationStore;
  scope: GenerationScope;
  logger: Logger;
}): { read: () => Promise<string | undefined>; lastKnown: GenerationSource['lastKnown'] } {
  // One warning per outage, not one per request.
  let failing = false;
  /** The indices this instance last recorded for the alias. */
  let recorded: string | undefined;
  let known: { generation: string; at: number } | undefined;
  const read = freshRead(async (): Promise<string | undefined> => {
    try {
      const [indices, counter] = await Promise.all([aliasTargets(elasticsearch, scope.alias), readCatalogueGeneration(redis, scope)]);
      if (failing) logger.info('catalogue generation readable again; response cache back in use');
      failing = false;
      if (indices.length === 0) return undefined;
      const targets = indices.join(',');
      let enrichment = counter;
      if (targets !== recorded) {
        const bumped = await recordAliasTargets(redis, scope, targets);
        if (bumped !== undefined) {
          enrichment = String(bumped);
          logger.info({ indices: targets, generation: bumped }, 'alias targets recorded as changed: catalogue generation bumped');
        }
        recorded = targets;
      }
      const generation = `${targets}#${enrichment}`;
      known = { generation, at: Date.now() };
      return generation;
    } catch (error) {
      if (!failing) logger.warn({ err: error }, 'cannot read the catalogue generation; answering without the response cache');
      failing = true;
      return undefined;
    }
  });
  return { read, lastKnown: () => known };
}

/**
 * Holds the generation in process while the subscriber listens: read again on each bump
 * message, on (re)subscribing and every `checkMs`; read per request while not listening.
 */
function heldGeneration(
  read: () => Promise<string | undefined>,
  { subscriber, channel, logger, checkMs }: { subscriber: GenerationSubscriber; channel: string; logger: Logger; checkMs: number },
): Pick<GenerationSource, 'current' | 'close'> {
  let held: Promise<string | undefined> | undefined;
  /** Replaces the held value by a read that starts after now; an unknown one is not kept. */
  const reread = (): Promise<string | undefined> => {
    const next: Promise<string | undefined> = read().then((value) => {
      if (value === undefined && held === next) held = undefined;
      return value;
    });
    held = next;
    return next;
  };
  const listening = listenForBumps(subscriber, channel, logger, () => void reread());
  // The background check keeps answering from the held value while it reads.
  const timer = setInterval(() => {
    if (!listening()) return;
    const before = held;
    void read().then((value) => {
      if (held === before) held = value === undefined ? undefined : Promise.resolve(value);
    });
  }, checkMs);
  timer.unref();

  return {
    current: async (atLeast) => {
      if (!listening()) return read();
      const value = await (held ?? reread());
      // Behind a counter the caller has seen (or unknown): the message has not arrived yet.
      return atLeast !== undefined && !(counterOf(value) >= atLeast) ? reread() : value;
    },
    close: () => clearInterval(timer),
  };
}

/**
 * Subscribes to the generation's channel (again once the connection is ready, if it was not)
 * and calls `changed` on each message and whenever one may have been missed. Returns whether
 * no message can be missed now.
 */
function listenForBumps(subscriber: GenerationSubscriber, channel: string, logger: Logger, changed: () => void): () => boolean {
  let listening = false;
  subscriber.on('message', (from) => {
    if (from === channel) changed();
  });
  // ioredis subscribes again by itself after a reconnect; until then messages may be lost.
  subscriber.on('close', () => {
    listening = false;
  });
  let subscribed = false;
  let warned = false;
  const subscribe = () =>
    subscriber.subscribe(channel).then(
      () => {
        subscribed = true;
        listening = true;
        changed();
      },
      (error: unknown) => {
        // Retried when the connection is (again) ready; until then the generation is read per request.
        if (!warned) logger.warn({ err: error }, 'cannot subscribe to catalogue generation changes yet; reading it per request');
        warned = true;
      },
    );
  subscriber.on('ready', () => {
    if (!subscribed) return void subscribe();
    // Subscribed again by the client itself; a change may have been missed meanwhile.
    listening = true;
    changed();
  });
  if (subscriber.status === 'ready') void subscribe();
  return () => listening;
}
