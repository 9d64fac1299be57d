import { Client } from '@elastic/elasticsearch';
import { createLogger } from '@fragrance/http';
import { currentIndex } from '@fragrance/search';
import { testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { similarLease, similarLeaseKey, startSimilarRefresher, type SimilarRefresher } from './similar.ts';
import { catalogueFixture, type CatalogueFixture } from './testing/fixtures.ts';

interface Generations {
  generations?: Record<string, string>;
  complete?: Record<string, string>;
}

/** An Elasticsearch client of one refresher, counting the requests it sends and its bulk writes of lists. */
function countedClient(url: string) {
  const client = new Client({ node: url });
  const counts = { requests: 0, bulks: 0 };
  client.diagnostic.on('request', (_error, event) => {
    if (!event) return;
    counts.requests += 1;
    if (event.meta.request.params.path.endsWith('/_bulk')) counts.bulks += 1;
  });
  return { client, counts };
}

/** Log lines of one refresher, parsed. */
function capturedLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger('worker-test', 'debug', { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

// One pass at a time across worker processes: each refresher below has its own Redis connection
// and Elasticsearch client, as two replicas would.
describe('similar lists lease across workers (real Redis and Elasticsearch)', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let fixture: CatalogueFixture;
  let jobsPrefix: string;
  let key: string;
  const clients: Client[] = [];
  const refreshers: SimilarRefresher[] = [];

  beforeAll(async () => {
    es = await testElasticsearch('worker-similar-lease');
    redis = await testRedis('worker-similar-lease');
    fixture = await catalogueFixture(es, { count: 120, seed: 39 });
    jobsPrefix = redis.prefix.replace(/:$/, '');
    key = similarLeaseKey(jobsPrefix, fixture.alias);
  });
  beforeEach(async () => {
    // Every test starts with no lists: the first pass has all of them to compute.
    await es.client.indices.delete({ index: `${fixture.alias}-similar`, ignore_unavailable: true });
    await redis.redis.del(key);
  });
  afterAll(async () => {
    await Promise.all(refreshers.map((r) => r.stop()));
    await Promise.all(clients.map((c) => c.close()));
    await redis?.cleanup();
    await es?.cleanup();
  });

  const refresher = (options: { leaseMs: number; ratePerSecond?: number; connection?: Redis; retryMs?: number }) => {
    const counted = countedClient(es.url);
    const { logger, lines } = capturedLogger();
    clients.push(counted.client);
    const started = startSimilarRefresher({
      elasticsearch: counted.client,
      alias: fixture.alias,
      logger,
      ratePerSecond: options.ratePerSecond ?? 0,
      redis: options.connection ?? redis.connect(),
      jobsPrefix,
      leaseMs: options.leaseMs,
      retryMs: options.retryMs ?? 100,
    });
    refreshers.push(started);
    return { refresher: started, counts: counted.counts, lines };
  };
  const computed = async () => {
    const index = (await currentIndex(es.client, fixture.alias))!;
    const g = (await es.client.get<Generations>({ index: `${fixture.alias}-similar`, id: 'generation' }))._source ?? {};
    return g.generations?.[index] !== undefined && g.complete?.[index]?.endsWith(`:${g.generations[index]}`) === true;
  };

  it('renews and releases a lease only while it holds its own token', async () => {
    const ours = similarLease(redis.connect(), key, 10_000);
    const theirs = similarLease(redis.connect(), key, 10_000);
    expect(await ours.acquire()).toBe(true);
    expect(await theirs.acquire()).toBe(false);
    expect(ours.token).not.toBe(theirs.token);
    expect(await theirs.renew()).toBe(false);
    expect(await theirs.release()).toBe(false);
    expect(await redis.redis.get(key)).toBe(ours.token);
    expect(await ours.renew()).toBe(true);
    expect(await ours.release()).toBe(true);
    expect(await redis.redis.exists(key)).toBe(0);
    // A lease that expired and was taken by another holder is not the loser's to release.
    expect(await theirs.acquire()).toBe(true);
    expect(await ours.release()).toBe(false);
    expect(await ours.renew()).toBe(false);
    expect(await redis.redis.get(key)).toBe(theirs.token);
  });

  it('runs one pass for two workers asked at once; the other request still ends with current lists', async () => {
    const a = refresher({ leaseMs: 5_000 });
    const b = refresher({ leaseMs: 5_000 });
    a.refresher.request('test');
    b.refresher.request('test');
    await Promise.all([a.refresher.idle(), b.refresher.idle()]);
    expect(await computed()).toBe(true);
    // Exactly one of them wrote the lists (one page: one bulk); the other ran its pass after
    // the first had released the lease and found them current.
    expect([a.counts.bulks, b.counts.bulks].sort()).toEqual([0, 1]);
    expect(a.counts.requests).toBeGreaterThan(0);
    expect(b.counts.requests).toBeGreaterThan(0);
    const waiter = a.counts.bulks === 0 ? a : b;
    expect(waiter.lines.some((l) => l.msg.includes('another worker holds the lease'))).toBe(true);
    expect(await redis.redis.exists(key)).toBe(0);
  });

  it('lets another worker run the pass once a holder that died lets its lease expire', async () => {
    const holderConnection = redis.connect();
    // Slow enough that the holder is still in its first pass when its Redis goes.
    const holder = refresher({ leaseMs: 3_000, ratePerSecond: 2, connection: holderConnection });
    holder.refresher.request('test');
    await expect.poll(() => holder.counts.bulks, { timeout: 60_000 }).toBe(1);
    const token = await redis.redis.get(key);
    expect(token).not.toBeNull();

    const other = refresher({ leaseMs: 1_500 });
    other.refresher.request('test');
    // The holder loses Redis for good: its renewals fail, it stops its pass, and the lease expires.
    holderConnection.disconnect();
    await expect.poll(() => holder.lines.some((l) => l.msg.includes('lease lost')), { timeout: 30_000 }).toBe(true);
    await other.refresher.idle();
    // The other worker completed the pass the holder never completed: the holder's lists were
    // current (same generation), so it kept them rather than computing them again.
    expect(other.counts.bulks).toBe(0);
    expect(other.lines.find((l) => l.msg === 'similar lists pass')).toMatchObject({ outcome: 'complete', records: 0, kept: fixture.count });
    expect(await computed()).toBe(true);
    // The holder keeps its request, retrying without a connection, until stopped; stopping ends it.
    await holder.refresher.stop();
    expect(holder.counts.bulks).toBe(1);
    expect(holder.lines.filter((l) => l.msg.includes('Redis does not answer')).length).toBe(1);
  });

  it('keeps waiting while another worker holds the lease, and stop() ends the wait', async () => {
    await redis.redis.set(key, 'another-worker', 'PX', 600_000);
    // A wait of ten minutes between attempts: only stop() can end it within the test's time.
    const { refresher: waiting, counts, lines } = refresher({ leaseMs: 5_000, retryMs: 600_000 });
    waiting.request('test');
    await expect.poll(() => lines.some((l) => l.msg.includes('another worker holds the lease'))).toBe(true);
    waiting.request('requested while waiting');
    await waiting.stop();
    expect(counts.requests).toBe(0);
    expect(await redis.redis.get(key)).toBe('another-worker');
  });

  it('waits without a pass while Redis does not answer, logs it once, and stops promptly', async () => {
    // A queue connection (commands wait for a reconnect) to a port nothing listens on.
    const away = new Redis('redis://127.0.0.1:1', { maxRetriesPerRequest: null, retryStrategy: () => 50 });
    away.on('error', () => undefined);
    let attempts = 0;
    const set = away.set.bind(away);
    away.set = ((...args: Parameters<typeof set>) => {
      attempts += 1;
      return set(...args);
    }) as typeof away.set;
    const { refresher: waiting, counts, lines } = refresher({ leaseMs: 600, connection: away });
    waiting.request('test');
    await expect.poll(() => lines.filter((l) => l.msg.includes('Redis does not answer')).length, { timeout: 10_000 }).toBe(1);
    // Several more attempts, still one line.
    await expect.poll(() => attempts, { timeout: 10_000 }).toBeGreaterThan(3);
    expect(lines.filter((l) => l.msg.includes('Redis does not answer')).length).toBe(1);
    await waiting.stop();
    expect(counts.requests).toBe(0);
    away.disconnect();
  });
});
