import { errors } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@fragrance/http';
import { startFaultProxy, testElasticsearch, type FaultProxy, type TestElasticsearch } from '@fragrance/testkit';
import { createElasticsearchBreaker, ElasticsearchUnavailableError } from './breaker.ts';
import { createElasticsearchClient } from './elasticsearch.ts';

// The real Elasticsearch behind a fault proxy of the test's own (frozen: nothing answers).
describe('Elasticsearch breaker', () => {
  let es: TestElasticsearch;
  let proxy: FaultProxy;

  beforeAll(async () => {
    es = await testElasticsearch('breaker');
    proxy = await startFaultProxy(es.url);
  });
  afterAll(async () => {
    proxy.set('pass');
    await proxy.close();
    await es.cleanup();
  });

  it('aborts a request waiting on a frozen node when it opens, as an abort: not retried, the connection not marked dead', async () => {
    // Half-open far beyond the test: whatever follows the abort is refused, never a probe.
    const breaker = createElasticsearchBreaker({ threshold: 2, halfOpenAfterMs: 600_000 }, createLogger('t', 'silent'));
    const client = createElasticsearchClient({ ELASTICSEARCH_URL: proxy.url, ELASTICSEARCH_TIMEOUT_MS: 600_000 }, breaker);
    await client.cluster.health();
    proxy.set('freeze');
    const sent = proxy.received;
    const waiting = client.cluster.health().then(
      () => undefined,
      (error: unknown) => error,
    );
    await expect.poll(() => proxy.received, { timeout: 10_000 }).toBeGreaterThan(sent);
    // Two requests of their own time out: the breaker opens and aborts the one still waiting.
    for (let i = 0; i < 2; i++) {
      await expect(client.cluster.health({}, { requestTimeout: 100, maxRetries: 0 })).rejects.toBeInstanceOf(errors.TimeoutError);
    }
    expect(breaker.state).toBe('open');

    const error = await waiting;
    expect(error).toBeInstanceOf(ElasticsearchUnavailableError);
    const cause = (error as ElasticsearchUnavailableError).cause;
    // An abort the client took for a lost connection was retried after its backoff (1-2 s):
    // long enough for the breaker to turn half-open and the caller's next request to become its
    // probe, held for the whole request timeout by the frozen node.
    expect(cause).toBeInstanceOf(errors.RequestAbortedError);
    expect((cause as errors.RequestAbortedError).meta?.meta.attempts).toBe(0);
    expect(client.connectionPool.connections.every((c) => c.status === 'alive')).toBe(true);
  });
});
