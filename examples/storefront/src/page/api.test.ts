import { describe, expect, it } from 'vitest';
import { ApiFailure, createApi, describeFailure, kindOfStatus } from './api.ts';

const ORIGIN = 'http://127.0.0.1:8090';

function answering(status: number, body: unknown, seen: { url: string; init: RequestInit | undefined }[] = []): typeof fetch {
  return async (url, init) => {
    seen.push({ url: url instanceof Request ? url.url : url.toString(), init });
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json' } });
  };
}

describe('the API calls', () => {
  it('send the publishable key as a bearer token, no cookies, to the documented paths', async () => {
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    const api = createApi({ baseUrl: 'https://api.example/v1/', publishableKey: 'fcs_pk_abc', fetch: answering(200, { data: [] }, seen) });
    await api.suggest('rose o');
    await api.search(new URLSearchParams({ query: 'rose', limit: '12' }));
    await api.similar('0b6a4c1e-8f2d-4a37-9c55-1d2e3f4a5b6c');
    expect(seen.map((call) => call.url)).toEqual([
      'https://api.example/v1/suggest?q=rose+o&limit=8',
      'https://api.example/v1/fragrances?query=rose&limit=12',
      'https://api.example/v1/fragrances/0b6a4c1e-8f2d-4a37-9c55-1d2e3f4a5b6c/similar?limit=6',
    ]);
    expect(seen[0]?.init?.headers).toEqual({ authorization: 'Bearer fcs_pk_abc', accept: 'application/json' });
    expect(seen[0]?.init?.credentials).toBe('omit');
  });

  it('turn a problem+json answer into a typed failure', async () => {
    const api = createApi({
      baseUrl: 'https://api.example/v1',
      publishableKey: 'fcs_pk_abc',
      fetch: answering(429, { code: 'rate_limited', detail: 'Slow down.', retry_after_seconds: 3, request_id: 'r1' }),
    });
    const failure = await api.search(new URLSearchParams()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiFailure);
    expect(failure).toMatchObject({ kind: 'busy', status: 429, code: 'rate_limited', retryAfterSeconds: 3, requestId: 'r1' });
  });

  it('report an answer the browser hides (network, CORS) as a network failure', async () => {
    const api = createApi({
      baseUrl: 'https://api.example/v1',
      publishableKey: 'fcs_pk_abc',
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    await expect(api.fragrance('x')).rejects.toMatchObject({ kind: 'network', status: null, message: 'Failed to fetch' });
  });
});

describe('failure messages', () => {
  it('sort statuses into what the page says', () => {
    expect([400, 401, 403, 404, 429, 500, 503].map(kindOfStatus)).toEqual([
      'invalid',
      'refused',
      'refused',
      'not_found',
      'busy',
      'unavailable',
      'unavailable',
    ]);
  });

  it("name the page's origin and what to check when the API refuses the key", () => {
    const refused = new ApiFailure('refused', 403, { code: 'forbidden', detail: 'This key is not allowed from this origin.' });
    const message = describeFailure(refused, ORIGIN);
    expect(message.title).toBe('The catalogue API refused this storefront');
    expect(message.text).toBe(
      `This key is not allowed from this origin. (403 forbidden) This page's origin is ${ORIGIN}: its publishable key must list it ` +
        `(npm run ops -- keys create --publishable --origin ${ORIGIN} …), and must not be expired or revoked.`,
    );
    expect(message.retry).toBe(false);
  });

  it('say how long to wait on a 429, and offer a retry on outages and network failures', () => {
    expect(describeFailure(new ApiFailure('busy', 429, { detail: 'Too many.', retry_after_seconds: 2 }), ORIGIN)).toEqual({
      title: 'Too many searches right now',
      text: 'Too many. Try again in 2 s.',
      retry: true,
    });
    expect(describeFailure(new ApiFailure('unavailable', 503, { code: 'service_unavailable', detail: 'Down.' }), ORIGIN).retry).toBe(true);
    const network = describeFailure(new ApiFailure('network', null, null, 'Failed to fetch'), ORIGIN);
    expect(network.text).toContain(ORIGIN);
    expect(network.retry).toBe(true);
  });
});
