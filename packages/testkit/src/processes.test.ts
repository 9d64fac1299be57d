// The process harness on stand-in entries (a script that prints and exits, one that answers
// /health): what a service is started with, how a failed start is reported, and what the stack
// refuses before it starts anything.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, spawnService, startService } from './processes.ts';
import { startStack } from './stack.ts';

const dir = mkdtempSync(join(tmpdir(), 'testkit-processes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const script = (name: string, source: string) => {
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
};

const printEnv = script(
  'print-env.ts',
  `const { PATH, PORT, METRICS_PORT, EMBEDDINGS_ENABLED, LOG_LEVEL, HOME } = process.env;
process.stdout.write(JSON.stringify({ path: Boolean(PATH), PORT, METRICS_PORT, EMBEDDINGS_ENABLED, LOG_LEVEL, home: HOME ?? null }));\n`,
);

describe('freePort', () => {
  // An outgoing connection takes a port of the kernel's ephemeral range at any moment, so a port
  // found free there can be gone before the service listens (EADDRINUSE in a CI run).
  it('answers a port outside the ephemeral range that a listener can take', async () => {
    const [low = 0, high = 0] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(port < low || port > high, `port ${port} is in ${low}-${high}`).toBe(true);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe('spawnService', () => {
  it('gives a test service PATH alone, a free metrics port, embeddings off and its own variables on top', async () => {
    const service = spawnService('probe', 4321, { LOG_LEVEL: 'info' }, { entry: printEnv });
    expect(await service.exited).toBe(0);
    expect(JSON.parse(service.output())).toEqual({
      path: true,
      PORT: '4321',
      METRICS_PORT: '0',
      EMBEDDINGS_ENABLED: 'false',
      LOG_LEVEL: 'info',
      home: null,
    });
  });

  it("passes a bench's whole environment under the service's own, leaving the service's defaults alone", async () => {
    const service = spawnService('probe', 4321, {}, { entry: printEnv, base: { PATH: process.env.PATH, HOME: '/nowhere' } });
    expect(await service.exited).toBe(0);
    expect(JSON.parse(service.output())).toMatchObject({ METRICS_PORT: '0', home: '/nowhere' });
    expect(JSON.parse(service.output())).not.toHaveProperty('EMBEDDINGS_ENABLED');
  });

  it('reports an exit before stop(), and none after', async () => {
    const early: string[] = [];
    const exiting = spawnService('probe', 0, {}, { entry: printEnv, onEarlyExit: (exit) => early.push(exit) });
    await exiting.exited;
    const stopped = spawnService(
      'probe',
      0,
      {},
      { entry: script('idle.ts', 'setInterval(() => {}, 1_000);\n'), onEarlyExit: (exit) => early.push(exit) },
    );
    await stopped.stop();
    expect(early).toEqual(['probe exited early (0)']);
  });
});

describe('startService', () => {
  it('resolves once /health answers 200', async () => {
    const entry = script(
      'healthy.ts',
      `import { createServer } from 'node:http';
createServer((_, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n`,
    );
    const service = await startService('probe', await freePort(), {}, 10_000, { entry });
    try {
      expect((await fetch(`${service.url}/health`)).status).toBe(200);
    } finally {
      await service.stop();
    }
  });

  it('fails naming the output when the process exits before it answers', async () => {
    const entry = script('crash.ts', `process.stderr.write('no REDIS_URL'); process.exit(3);\n`);
    await expect(startService('probe', await freePort(), {}, 10_000, { entry })).rejects.toThrow(/probe exited with 3:\nno REDIS_URL/);
  });
});

describe('startStack', () => {
  it('refuses a catalogue without an Elasticsearch, and two MCP servers, before starting anything', async () => {
    const redis = { url: 'redis://127.0.0.1:1', prefix: 'never:' };
    await expect(startStack({ services: ['catalogue'], redis })).rejects.toThrow('the catalogue needs the test Elasticsearch');
    await expect(startStack({ services: ['mcp'], redis, inProcessMcp: () => Promise.resolve('') })).rejects.toThrow(
      'an MCP server in process and one as a process',
    );
  });
});
