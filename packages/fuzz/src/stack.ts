// The stack the fuzzer drives: the real catalogue and gateway as their own processes, over a
// small generated catalogue in a real Elasticsearch index and API keys in a real Redis.
import { Client } from '@elastic/elasticsearch';
import { createKeyStore } from '@fragrance/api-keys';
import { generateCatalogue } from '@fragrance/dataset';
import { createRedisClient, quietRedisLogger } from '@fragrance/redis';
import { ingestCatalogue } from '@fragrance/search';
import { startStack, type Stack } from '@fragrance/testkit';

export interface FuzzTarget {
  /** The public edge, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  apiKey: string;
  /** Ids of records that exist, so generated detail requests can hit as well as miss. */
  knownIds: readonly string[];
  stop: () => Promise<void>;
}

export interface FuzzStackOptions {
  elasticsearchUrl: string;
  redisUrl: string;
  /** Index/alias and Redis key prefix, unique per run (lower-case). */
  prefix: string;
  /** Records in the generated catalogue. */
  records?: number;
  /** The catalogue loads the embedding model (semantic and hybrid search); default false. */
  embeddings?: boolean;
}

/** Ingests a catalogue, creates a key with room for the whole run, starts catalogue + gateway. */
export async function startFuzzStack(options: FuzzStackOptions): Promise<FuzzTarget> {
  const { elasticsearchUrl, redisUrl, prefix, records = 500, embeddings = false } = options;
  const es = new Client({ node: elasticsearchUrl });
  const redis = createRedisClient({ REDIS_URL: redisUrl }, quietRedisLogger, 'command');
  let stack: Stack | undefined;
  const alias = `${prefix}fragrances`;
  const stop = async () => {
    await stack?.stop();
    await es.indices.delete({ index: `${prefix}*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    const keys = await redis.keys(`${prefix}*`).catch(() => []);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await es.close();
  };
  try {
    const catalogue = [...generateCatalogue({ count: records, seed: 20_26 })];
    await ingestCatalogue({ client: es, alias, records: catalogue, replicas: 0 });
    await redis.connect();
    const { apiKey } = await createKeyStore({ redis, prefix }).create({
      owner: 'fuzz',
      quota: 10_000_000,
      burst: 1_000_000,
      refillPerSecond: 1_000_000,
    });
    // The catalogue's response cache reads the enrichment generation in Redis (answers are
    // fuzzed cached too); each stack signs its cursors with a fresh key, so another run's are foreign.
    stack = await startStack({
      services: ['catalogue', 'gateway'],
      redis: { url: redisUrl, prefix },
      elasticsearchUrl,
      alias,
      embeddings,
    });
    const baseUrl = stack.urls.edge;
    return { baseUrl, apiKey, knownIds: catalogue.slice(0, 50).map((record) => record.id), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
