import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, problemHandler, requestLogger } from '@fragrance/http';
import { createUpstreamAgent, proxyTo } from './proxy.ts';
import { close, listen } from './test-support.ts';

describe('proxyTo', () => {
  let upstream: Server;
  let edge: Server;
  let edgeUrl: string;
  const agent = createUpstreamAgent();

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (req.url === '/echo') {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => res.setHeader('content-type', 'text/plain').end(`${req.method} ${Buffer.concat(chunks).toString()}`));
        return;
      }
      if (req.url === '/stall-body') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        return; // never ends
      }
      if (req.url === '/reset-body') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        setTimeout(() => res.destroy(), 20);
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    const upstreamUrl = await listen(upstream);
    const app = express();
    app.use(requestLogger(createLogger('proxy-test', 'silent')));
    app.use(proxyTo({ upstream: upstreamUrl, agent, timeoutMs: 300 }));
    app.use(problemHandler);
    edge = createServer(app);
    edgeUrl = await listen(edge);
  });
  afterAll(async () => {
    await close(edge);
    await close(upstream);
    await agent.close();
  });

  it('forwards a request body and the upstream status', async () => {
    const res = await fetch(`${edgeUrl}/echo`, { method: 'POST', body: 'client_name=x' });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('POST client_name=x');
    expect((await fetch(`${edgeUrl}/missing`)).status).toBe(404);
  });

  it('cuts a response whose body stalls instead of hanging', async () => {
    const t0 = performance.now();
    const res = await fetch(`${edgeUrl}/stall-body`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect(performance.now() - t0).toBeLessThan(3_000);
  });

  it('cuts a response whose upstream dies mid-body', async () => {
    const res = await fetch(`${edgeUrl}/reset-body`);
    await expect(res.text()).rejects.toThrow();
  });
});
