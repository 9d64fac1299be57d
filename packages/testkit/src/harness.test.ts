import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { FormUser, parseForms } from './form-user.ts';
import { close, listen } from './http-server.ts';
import { waitFor } from './wait.ts';

describe('listen and close', () => {
  it('serves on a loopback port and closes even with a request still open', async () => {
    const server = createServer((req, res) => {
      if (req.url === '/stall') return; // never answers
      res.end('hello');
    });
    const url = await listen(server);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(url)).text()).toBe('hello');
    const stalled = fetch(`${url}/stall`).catch((error: unknown) => error);
    await waitFor(() => new Promise<number>((resolve) => server.getConnections((_e, n) => resolve(n))).then((n) => n >= 1));
    const started = Date.now();
    await close(server);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(await stalled).toBeInstanceOf(Error);
    expect(server.listening).toBe(false);
  });
});

describe('waitFor', () => {
  it('resolves to the first truthy value, polling until then', async () => {
    let calls = 0;
    const value = await waitFor(() => (++calls >= 3 ? { calls } : undefined), { intervalMs: 1 });
    expect(value).toEqual({ calls: 3 });
  });

  it('treats a throw as not yet, and reports the last one when it gives up', async () => {
    const failure = waitFor(
      () => {
        throw new Error('still starting');
      },
      { timeoutMs: 50, intervalMs: 5, description: 'the answer' },
    );
    await expect(failure).rejects.toThrow('the answer not met within 50 ms');
    await expect(failure).rejects.toHaveProperty('cause.message', 'still starting');
  });

  it('gives up after timeoutMs when the condition stays falsy', async () => {
    const started = Date.now();
    await expect(waitFor(() => false, { timeoutMs: 100, intervalMs: 10 })).rejects.toThrow(/within 100 ms/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe('FormUser', () => {
  it('keeps cookies per origin, signs in through the login form and presses Allow', async () => {
    const seen: { url: string; cookie?: string; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ url: req.url ?? '', body, ...(req.headers.cookie ? { cookie: req.headers.cookie } : {}) });
        if (req.url === '/authorize') {
          res.setHeader('set-cookie', ['session=s1; Path=/; HttpOnly', 'stale=x; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
          res.writeHead(303, { location: '/login' }).end();
        } else if (req.url === '/login' && req.method === 'GET') {
          res.end(
            '<form method="post" action="/login"><input type="hidden" name="csrf" value="a&amp;b"><input name="email"><input name="password" type="password"></form>',
          );
        } else if (req.url === '/login') {
          res.end(
            '<form method="post" action="/consent/abort"></form><form method="post" action="/consent/confirm"><input type="hidden" name="csrf" value="c2"></form>',
          );
        } else if (req.url === '/consent/confirm') {
          res.writeHead(303, { location: 'http://127.0.0.1:1/cb?code=abc' }).end();
        } else res.writeHead(404).end();
      });
    });
    const url = await listen(server);
    try {
      const final = await new FormUser(url).authorize(`${url}/authorize`, { email: 'a@example.com', password: 'pw' });
      expect(final.location).toBe('http://127.0.0.1:1/cb?code=abc');
      expect(seen.map((r) => r.url)).toEqual(['/authorize', '/login', '/login', '/consent/confirm']);
      expect(seen[0]?.cookie).toBeUndefined();
      expect(seen.slice(1).map((r) => r.cookie)).toEqual(['session=s1', 'session=s1', 'session=s1']);
      expect(Object.fromEntries(new URLSearchParams(seen[2]?.body))).toEqual({ csrf: 'a&b', email: 'a@example.com', password: 'pw' });
      expect(seen[3]?.body).toBe('csrf=c2');
    } finally {
      await close(server);
    }
  });

  it('parses form actions against the page URL and decodes entities', () => {
    const [form] = parseForms('<form action="/x?a=1&amp;b=2"><input name="q" value="&quot;hi&quot;"></form>', 'http://h.example/p/q');
    expect(form?.action).toBe('http://h.example/x?a=1&b=2');
    expect(form?.fields.get('q')).toBe('"hi"');
  });
});
