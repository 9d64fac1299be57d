import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, freePort, listen } from '@fragrance/testkit';
import { createCatalogue, CatalogueRejectedError, CatalogueUnavailableError, type Catalogue } from './catalogue.ts';

/** A stand-in catalogue service: answers what the test sets, and records what it was sent. */
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const received: { url: string; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let catalogue: Catalogue;

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
  const base = await listen(server);
  catalogue = createCatalogue({ baseUrl: base, timeoutMs: 2_000 });
});
afterAll(async () => {
  await catalogue.close();
  await close(server);
});

const problem = (status: number, extra: object = {}) => JSON.stringify({ type: 'about:blank', title: 't', status, ...extra });

describe('catalogue client of the MCP server', () => {
  it('sends the typed query to /v1 with the request id', async () => {
    answer = { status: 200, body: JSON.stringify({ data: [], total: 0, limit: 5, offset: 0, next_cursor: null }) };
    received.length = 0;
    const page = await catalogue.forRequest('req-7').search({ query: 'rose', note: ['oud', 'amber'], limit: 5 });
    expect(page.total).toBe(0);
    expect(received).toHaveLength(1);
    const [{ url, headers }] = received as [(typeof received)[number]];
    expect(Object.fromEntries(new URL(url, 'http://x').searchParams)).toEqual({ query: 'rose', note: 'oud,amber', limit: '5' });
    expect(new URL(url, 'http://x').pathname).toBe('/v1/fragrances');
    expect(headers['x-request-id']).toBe('req-7');
    expect(headers.authorization).toBeUndefined();
  });

  it('maps a 4xx problem to a rejection with its detail, code and invalid parameters', async () => {
    answer = {
      status: 400,
      body: problem(400, { detail: 'bad brand', code: 'invalid_parameter', invalid_params: [{ name: 'brand', reason: 'is unknown' }] }),
    };
    const error = await catalogue
      .forRequest('r')
      .search({ brand: 'x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogueRejectedError);
    expect(error).toMatchObject({
      status: 400,
      message: 'bad brand',
      code: 'invalid_parameter',
      invalidParams: [{ name: 'brand', reason: 'is unknown' }],
    });
    answer = { status: 404, body: problem(404) };
    await expect(catalogue.forRequest('r').fragrance('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      message: 'The catalogue refused the request (404).',
    });
  });

  it('maps 5xx, 429, a body that is not JSON and no connection to unavailable', async () => {
    for (const next of [
      { status: 503, body: problem(503) },
      { status: 429, body: problem(429) },
      { status: 200, body: '<html>' },
    ]) {
      answer = next;
      await expect(catalogue.forRequest('r').brands()).rejects.toBeInstanceOf(CatalogueUnavailableError);
    }
    const nowhere = createCatalogue({ baseUrl: `http://127.0.0.1:${await freePort()}`, timeoutMs: 500 });
    try {
      await expect(nowhere.forRequest('r').brands()).rejects.toThrow(new CatalogueUnavailableError('The catalogue is unavailable.'));
    } finally {
      await nowhere.close();
    }
  });
});
