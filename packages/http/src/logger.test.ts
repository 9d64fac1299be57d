import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, isSafeRequestId, requestIdOf, requestLogger } from './logger.ts';

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
