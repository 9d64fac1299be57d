import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, isSafeRequestId, REDACT, requestIdOf, requestLogger } from './logger.ts';

const withId = (id: string | string[] | undefined) => ({ headers: { 'x-request-id': id } }) as unknown as IncomingMessage;

describe('request ids', () => {
  it.each(['abc-123', 'trace.42_A-b', '7f3c2a9e-1b2d-4c5e-8f90-123456789abc', '4bf92f3577b34da6a3ce929d0e0e4736', 'x'.repeat(39)])(
    'keeps the safe client id %j',
    (id) => {
      expect(isSafeRequestId(id)).toBe(true);
      expect(requestIdOf(withId(id))).toBe(id);
    },
  );

  it.each([
    ['an API key', `fcs_${'a1B2c3D4e5'.repeat(4)}xyz`],
    ['a JWT', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig'],
    ['an opaque token', 'Qm9yZWRPZlJlYWRpbmdUaGlzUmFuZG9tVG9rZW5WYWx1ZQ'],
    ['too long', 'a-'.repeat(33)],
    ['empty', ''],
    ['a colon', 'a:b'],
    ['a space', 'a b'],
    ['a newline', 'a\nb'],
    ['non-ASCII', 'café'],
  ])('replaces %s with a fresh UUID', (_what, id) => {
    expect(isSafeRequestId(id)).toBe(false);
    expect(requestIdOf(withId(id))).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('replaces a repeated header', () => {
    expect(requestIdOf(withId(['a', 'b']))).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('the request line', () => {
  const linesOf = async (status: number, fail?: Error) => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const log = requestLogger(createLogger('test', 'info', destination));
    const server = createServer((req, res) => {
      log(req, res);
      if (fail) res.err = fail;
      res.statusCode = status;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.arrayBuffer());
    await new Promise((resolve) => server.close(resolve));
    return lines;
  };

  it('of a deliberate 503 (a health check while a dependency is down) is an error line without a made-up stack', async () => {
    const [line] = await linesOf(503);
    expect(line).toMatchObject({ level: 50, msg: 'GET /health 503', res: { status: 503 } });
    // pino-http invents `Error('failed with status code 503')` with its own stack: noise, and
    // the real errors are logged with theirs by the problem handler.
    expect(line).not.toHaveProperty('err');
  });

  it('keeps an error the response carries', async () => {
    const [line] = await linesOf(500, new Error('the upstream broke'));
    expect(line).toMatchObject({ level: 50, err: { message: 'the upstream broke' } });
  });
});

describe('redaction', () => {
  /** Every line a logger writes, without its time (the one field two loggers cannot share). */
  const capture = () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString().replace(/"time":\d+,/, ''));
        done();
      },
    });
    return { lines, destination };
  };
  class Thing {
    password = 'class-password';
    visible = 1;
  }
  const bare = Object.assign(Object.create(null) as Record<string, unknown>, { secret: 'bare-secret', kept: 'yes' });
  // One error for both loggers: its stack names where it was made.
  const error = Object.assign(new Error('boom'), { token: 'error-token' });
  const writeAll = (log: pino.Logger) => {
    log.info({ req: { id: 'r1', method: 'GET', path: '/v1/x' }, res: { status: 200 }, responseTime: 12 }, 'GET /v1/x 200 12ms');
    log.warn({ req: { url: '/', headers: { authorization: 'Bearer fcs_header', cookie: 'c=cookie', accept: '*/*' } } }, 'headers');
    log.info({ body: { password: 'body-password', user: 'u' }, token: 'top-token', nested: { inner: { password: 'deep' } } }, 'wild');
    log.error({ err: error }, 'failed');
    log
      .child({ req: { id: 'r2', headers: { authorization: 'Bearer child' } }, user: { apiKey: 'child-key' }, plain: { a: 1 } })
      .info({ count: 3, ok: true, list: [1, { secret: 'in-list' }], when: new Date(0), thing: new Thing(), bare }, 'child');
    log.info({ nothing: null, n: Number.NaN, s: 'quote " and\nnewline', auth: { access_token: 'at', refresh_token: 'rt', api_key: 'ak' } });
    log.info('%j', { password: 'interpolated' });
  };

  it('writes exactly the lines pino’s own redaction writes, quickly or not', () => {
    const ours = capture();
    const reference = capture();
    writeAll(createLogger('test', 'info', ours.destination));
    writeAll(pino({ name: 'test', level: 'info', redact: { paths: REDACT, censor: '[redacted]' } }, reference.destination));
    expect(ours.lines).toHaveLength(7);
    expect(ours.lines).toEqual(reference.lines);
    const text = ours.lines.join('');
    for (const secret of [
      'fcs_header',
      'c=cookie',
      'body-password',
      'error-token',
      'Bearer child',
      'child-key',
      'class-password',
      'bare-secret',
      'top-token',
      '"at"',
      '"rt"',
      '"ak"',
    ])
      expect(text).not.toContain(secret);
  });
});
