import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, listen } from '@fragrance/testkit';
import { currentTraceId, traceContext, traceHeaders, withNewTrace } from './trace-context.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe('traceContext', () => {
  let server: Server;
  let base: string;
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { mixin: () => (currentTraceId() ? { trace_id: currentTraceId() } : {}) },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );

  beforeAll(async () => {
    const app = express();
    app.use(traceContext());
    app.get('/hop', async (req, res) => {
      // After an await, the request's trace is still the active one.
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.info('inside the request');
      res.json({ forwarded: req.headers.traceparent, outgoing: traceHeaders(), traceId: currentTraceId() });
    });
    server = app.listen(0, '127.0.0.1');
    base = await listen(server);
  });
  afterAll(() => close(server));

  const hop = async (headers: Record<string, string> = {}) =>
    (await (await fetch(`${base}/hop`, { headers })).json()) as { forwarded: string; outgoing: Record<string, string>; traceId: string };

  it('joins an inbound traceparent and names this hop as the parent of the next one', async () => {
    const seen = await hop({ traceparent: `00-${TRACE}-${PARENT}-01` });
    expect(seen.traceId).toBe(TRACE);
    const [, traceId, spanId] = TRACEPARENT.exec(seen.forwarded) ?? [];
    expect(traceId).toBe(TRACE);
    expect(spanId).not.toBe(PARENT);
    expect(seen.outgoing.traceparent).toBe(seen.forwarded);
    expect(seen.forwarded.endsWith('-01')).toBe(true);
    expect(lines.filter((line) => line.trace_id === TRACE && line.msg === 'inside the request')).toHaveLength(1);
  });

  it('starts a new trace when there is none, or the header is not a valid traceparent', async () => {
    const bad = [
      'garbage',
      `00-${'0'.repeat(32)}-${PARENT}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${PARENT}-01`,
    ];
    const ids = new Set<string>();
    for (const traceparent of [undefined, ...bad]) {
      const seen = await hop(traceparent ? { traceparent } : {});
      expect(seen.forwarded).toMatch(TRACEPARENT);
      expect(seen.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(seen.traceId).not.toBe(TRACE);
      ids.add(seen.traceId);
    }
    expect(ids.size).toBe(bad.length + 1);
  });

  it('leaves no trace active outside a request', () => {
    expect(currentTraceId()).toBeUndefined();
    expect(traceHeaders()).toEqual({});
  });

  it('runs the response’s listeners in the request’s trace, whatever context ends the response', async () => {
    // A proxy's response is ended from the upstream connection's callbacks, which carry the
    // context of whichever request opened that connection: here, a trace of its own.
    const seen: { event: string; traceId: string | undefined }[] = [];
    const app = express();
    app.use(traceContext());
    app.use((_req, res, next) => {
      for (const event of ['finish', 'close']) res.once(event, () => seen.push({ event, traceId: currentTraceId() }));
      next();
    });
    app.get('/elsewhere', (_req, res) => {
      // Ended later, from a callback of another trace (the behaviour under test, not a wait).
      setTimeout(() => withNewTrace(() => res.end('ok')), 5);
    });
    const other = app.listen(0, '127.0.0.1');
    try {
      const url = await listen(other);
      const res = await fetch(`${url}/elsewhere`, { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
      expect(await res.text()).toBe('ok');
      // 'close' may fire after the client has read the body.
      await expect
        .poll(() => seen)
        .toEqual([
          { event: 'finish', traceId: TRACE },
          { event: 'close', traceId: TRACE },
        ]);
    } finally {
      await close(other);
    }
  });
});
