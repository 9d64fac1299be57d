// What the edge does with request targets, Expect and request ids a client, proxy or attacker
// sends: raw-socket cases (fetch would normalise most of them away before they leave).
import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import { bearer, captureLogs, gatewayTest } from './testing/app.ts';

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes exactly as given and reads the whole answer (the request asks to close). */
async function raw(url: string, request: string): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer in 5 s')));
  });
  // A 100 Continue interim response may come first: the final answer is the last head.
  const heads = text.split(/\r\n\r\n/);
  let index = 0;
  while (heads[index]?.startsWith('HTTP/1.1 100')) index += 1;
  const [statusLine = '', ...headerLines] = (heads[index] ?? '').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = heads.slice(index + 1).join('\r\n\r\n');
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!size) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

const get = (target: string, headers: Record<string, string> = {}): string =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

/** The file's gateway, logging to `logs`, with its stand-in upstream as the authorization and MCP servers too; a key on it. */
const it = gatewayTest
  .extend('logs', { scope: 'file' }, () => captureLogs())
  .extend('gatewayOptions', { scope: 'file' }, ({ upstream, logs }) => ({
    env: { AUTH_SERVICE_URL: upstream.url, MCP_SERVICE_URL: upstream.url },
    logger: logs.logger,
  }))
  .extend('apiKey', { scope: 'file' }, async ({ keys }) => {
    const { apiKey } = await keys.create({ owner: 'edge', quota: 10_000, burst: 10_000 });
    return apiKey;
  });

describe('the edge, as a hostile client meets it', () => {
  // What reached the upstream during this test only.
  it.beforeEach(({ upstream }) => {
    upstream.requests.length = 0;
  });

  describe('Expect: 100-continue', () => {
    it('is answered at the edge, not forwarded, on a data read', async ({ gateway, apiKey }) => {
      const res = await raw(gateway.url, get('/v1/fragrances?query=rose', { ...bearer(apiKey), Expect: '100-continue' }));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ url: '/v1/fragrances?query=rose' });
    });

    it('lets a POST body through to the authorization server', async ({ gateway }) => {
      const body = 'grant_type=authorization_code&code=x';
      const res = await raw(
        gateway.url,
        `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nExpect: 100-continue\r\n` +
          `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ url: '/oauth/token', method: 'POST' });
    });

    it('refuses an expectation it cannot meet with 417', async ({ gateway, apiKey, upstream }) => {
      const res = await raw(gateway.url, get('/v1/fragrances', { ...bearer(apiKey), Expect: 'something-else' }));
      expect(res.status).toBe(417);
      expect(upstream.requests).toEqual([]);
    });
  });

  describe('request targets', () => {
    it('serves an absolute-form target as its path and query', async ({ gateway, apiKey }) => {
      const res = await raw(gateway.url, get('http://127.0.0.1:8080/v1/fragrances?query=rose', bearer(apiKey)));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ url: '/v1/fragrances?query=rose' });
    });

    it.for(['*', 'example.com:443', 'ftp://127.0.0.1/v1/fragrances', 'v1/fragrances', 'http://'])(
      'refuses target %j with 400',
      async (target, { gateway, apiKey, upstream }) => {
        const res = await raw(gateway.url, get(target, bearer(apiKey)));
        expect(res.status).toBe(400);
        expect(upstream.requests).toEqual([]);
      },
    );

    it.for([
      '/v1/fragrances/../../health',
      '/v1/fragrances/%2e%2e/%2e%2e/health',
      '/v1/fragrances/%2E%2E/%2E%2E/v1/openapi.json',
      '/v1/fragrances/..%2f..%2fhealth',
      '/v1/fragrances/..%2F..%2Fhealth',
      '/v1/fragrances/..\\..\\health',
      '/v1/fragrances/..%5c..%5chealth',
      '/v1/fragrances/./abc',
      '/v1/fragrances/abc%2fdef',
      '/v1/fragrances/abc%00',
      '/v1/fragrances/%zz',
      '/v1//fragrances',
      '/oauth/../health',
      '/mcp/..',
    ])('refuses %j with 400 invalid_path and forwards nothing', async (target, { gateway, apiKey, upstream }) => {
      const res = await raw(gateway.url, get(target, bearer(apiKey)));
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'invalid_path' });
      expect(upstream.requests).toEqual([]);
    });

    it.for([
      '/v1/fragrances/abc/def',
      '/v1/fragrances/abc/similar/x',
      '/v1/fragrances/abc/health',
      '/v1/fragrancesx',
      '/mcp/x',
      '/health/x',
      '/v1/FRAGRANCES',
      '/V1/fragrances',
      '/v1/brands/hermes/x',
      '/v1/BRANDS',
      '/v1/suggestx',
      '/v1/notes/rose',
      '/MCP',
    ])('forwards only the public routes: %j is a 404 at the edge', async (target, { gateway, apiKey, upstream }) => {
      const res = await raw(gateway.url, get(target, bearer(apiKey)));
      expect(res.status).toBe(404);
      expect(upstream.requests).toEqual([]);
    });

    it.for([
      '/v1/fragrances',
      '/v1/fragrances/',
      '/v1/fragrances/frg-00001',
      '/v1/fragrances/frg-00001/similar',
      '/v1/fragrances/caf%C3%A9',
      '/v1/suggest?q=terre%20d%20herm',
      '/v1/brands?country=FR',
      '/v1/brands/maison-francis-kurkdjian',
      '/v1/brands/%E8%B3%87%E7%94%9F%E5%A0%82',
      '/v1/notes',
      '/v1/accords',
      '/v1/perfumers?search=ellena',
    ])('forwards the public route %j as sent', async (target, { gateway, apiKey, upstream }) => {
      const res = await raw(gateway.url, get(target, bearer(apiKey)));
      expect(res.status).toBe(200);
      expect(upstream.requests).toEqual([`GET ${target}`]);
    });
  });

  describe('request ids', () => {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const keyShaped = `fcs_${'A1b2C3d4E5'.repeat(4)}xyz`;
    const jwtShaped = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlc2lnbmF0dXJl';

    it('keeps a short, safe client id end to end', async ({ gateway, apiKey }) => {
      const res = await raw(gateway.url, get('/v1/fragrances', { ...bearer(apiKey), 'X-Request-Id': 'trace.42_A-b' }));
      expect(res.headers['x-request-id']).toBe('trace.42_A-b');
      expect(JSON.parse(res.body)).toMatchObject({ requestId: 'trace.42_A-b' });
    });

    it.for([keyShaped, jwtShaped, 'a'.repeat(65), 'has space', 'semi;colon', 'colon:s', 'ünï'])(
      'replaces %j with its own id everywhere: response, upstream and logs',
      async (id, { gateway, apiKey, logs }) => {
        logs.lines.length = 0;
        const res = await raw(gateway.url, get('/v1/fragrances', { ...bearer(apiKey), 'X-Request-Id': id }));
        expect(res.status).toBe(200);
        expect(res.headers['x-request-id']).toMatch(uuid);
        expect(JSON.parse(res.body)).toMatchObject({ requestId: res.headers['x-request-id'] });
        expect(res.body).not.toContain(id);
        expect(logs.lines.join('\n')).not.toContain(id);
      },
    );
  });

  it('refuses oversized headers with 431 before anything is forwarded', async ({ gateway, apiKey, upstream }) => {
    const res = await raw(gateway.url, get('/v1/fragrances', { ...bearer(apiKey), 'X-Padding': 'a'.repeat(32 * 1024) }));
    expect(res.status).toBe(431);
    expect(upstream.requests).toEqual([]);
  });

  it('answers a write to the OpenAPI document with 405 and Allow', async ({ gateway, upstream }) => {
    const res = await raw(gateway.url, `DELETE /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(JSON.parse(res.body)).toMatchObject({ code: 'method_not_allowed' });
    expect(upstream.requests).toEqual([]);
  });
});
