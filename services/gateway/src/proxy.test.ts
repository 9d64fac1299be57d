import { createServer, get as httpGet, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger, problemHandler, requestLogger } from '@fragrance/http';
import { close, listen } from '@fragrance/testkit';
import { createUpstreamAgent, proxyTo, UPSTREAM_IDLE_MS } from './proxy.ts';

/** HAProxy's `timeout http-keep-alive` in the cluster (packages/stack/src/haproxy.ts). */
const EDGE_IDLE_TIMEOUT_MS = 10_000;

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
      if (req.url === '/forwarded') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ host: req.headers['x-forwarded-host'], proto: req.headers['x-forwarded-proto'] }));
        return;
      }
      if (req.url === '/early') {
        // Answers without reading the body, then closes: what a 401 from an upstream looks like.
        res.writeHead(401, { 'content-type': 'application/json', connection: 'close' });
        res.end('{"refused":true}');
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    const upstreamUrl = await listen(upstream);
    const app = express();
    app.use(requestLogger(createLogger('proxy-test', 'silent')));
    app.use(
      proxyTo({
        name: 'catalogue',
        upstream: upstreamUrl,
        agent,
        timeoutMs: 300,
        maxBodyBytes: 1024 * 1024,
        publicOrigin: 'https://api.fragrance.example',
      }),
    );
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

  it("names the configured public origin upstream, never the client's Host header", async () => {
    const { port } = new URL(edgeUrl);
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpGet({ host: '127.0.0.1', port, path: '/forwarded', headers: { host: 'evil.example' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
    });
    expect(JSON.parse(body)).toEqual({ host: 'api.fragrance.example', proto: 'https' });
  });

  it('passes on an upstream answer given before the body was read (not a 502)', async () => {
    const res = await fetch(`${edgeUrl}/early`, { method: 'POST', body: 'x'.repeat(1000 * 1024) });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ refused: true });
  });

  it('refuses a body over the limit with 413 problem+json, declared or streamed', async () => {
    const declared = await fetch(`${edgeUrl}/echo`, { method: 'POST', body: 'x'.repeat(1025 * 1024) });
    expect(declared.status).toBe(413);
    expect(declared.headers.get('content-type')).toMatch(/problem\+json/);
    expect(((await declared.json()) as { code: string }).code).toBe('payload_too_large');

    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 1030; i += 1) controller.enqueue(new Uint8Array(1024).fill(120));
        controller.close();
      },
    });
    const streamed = await fetch(`${edgeUrl}/echo`, { method: 'POST', body: chunks, duplex: 'half' });
    expect(streamed.status).toBe(413);
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

describe('createUpstreamAgent', () => {
  it('closes an idle upstream connection before a load balancer that sends no keep-alive hint does (HAProxy: 10 s)', async () => {
    // A bare HTTP/1.1 server answering with no Keep-Alive header, as HAProxy does: the agent
    // cannot learn the upstream's idle timeout, so its own must be shorter, or it may send a
    // request on a socket the upstream is closing ("other side closed", a 502 at the edge).
    let clientClosedAt: number | undefined;
    const server = createNetServer((socket) => {
      socket.on('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok'));
      socket.on('end', () => {
        clientClosedAt ??= Date.now();
        socket.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const agent = createUpstreamAgent();
    try {
      const { port } = server.address() as AddressInfo;
      const answered = await agent.request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET' });
      await answered.body.text();
      const idleSince = Date.now();
      await expect
        .poll(() => clientClosedAt, {
          timeout: UPSTREAM_IDLE_MS + 3_000,
          interval: 100,
          message: 'the agent kept its idle connection open',
        })
        .toBeDefined();
      expect(clientClosedAt! - idleSince).toBeLessThan(EDGE_IDLE_TIMEOUT_MS);
    } finally {
      await agent.close();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 15_000);
});
