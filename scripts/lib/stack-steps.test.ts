import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorefrontKey, fillRecordVectors, printWelcome, STOREFRONT_ORIGIN } from './stack-steps.ts';

describe('the storefront demo key (npm start)', () => {
  it('creates a publishable key for the storefront origin and writes it with the API address', async () => {
    const dir = mkdtempSync(`${tmpdir()}/storefront-env-`);
    try {
      const calls: string[][] = [];
      const key = `fcs_pk_${'A'.repeat(43)}`;
      const created = await createStorefrontKey({}, 'http://127.0.0.1:8080', `${dir}/.env.local`, async (args) => {
        calls.push(args);
        return { status: 0, stdout: JSON.stringify({ api_key: key }), stderr: '' };
      });
      expect(created).toBe(key);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toEqual(expect.arrayContaining(['keys', 'create', '--publishable', '--replace', '--json']));
      expect(calls[0]?.[calls[0].indexOf('--origin') + 1]).toBe('http://127.0.0.1:8090');
      const file = readFileSync(`${dir}/.env.local`, 'utf8');
      expect(file).toContain(`STOREFRONT_PUBLISHABLE_KEY=${key}\n`);
      expect(file).toContain('STOREFRONT_API_URL=http://127.0.0.1:8080/v1\n');
      await expect(
        createStorefrontKey({}, 'http://x', `${dir}/other`, async () => ({ status: 2, stdout: '', stderr: 'boom' })),
      ).rejects.toThrow(/publishable key failed: boom/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints the publishable key and how to open the storefront', () => {
    const said: string[] = [];
    printWelcome((m) => said.push(m), 'http://127.0.0.1:8080', 'fcs_secret', { email: 'demo@x' }, 'fcs_pk_demo');
    expect(said).toContain(`Storefront: npm run example:storefront → ${STOREFRONT_ORIGIN}`);
    expect(said.join('\n')).toMatch(/publishable key .*fcs_pk_demo/);
  });
});

describe('fillRecordVectors (npm start, npm run cluster)', () => {
  let server: Server;
  let url: string;
  let embedded = 0;
  beforeAll(async () => {
    // Elasticsearch's _count: 10 records, `embedded` of them with a vector of the model.
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ count: body.includes('embedding.model') ? embedded : 10 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('queues an enrichment run when records lack vectors', async () => {
    embedded = 4;
    const said: string[] = [];
    let queued = 0;
    await fillRecordVectors(
      (m) => said.push(m),
      {},
      url,
      async () => {
        queued++;
        return { status: 0, stderr: '' };
      },
    );
    expect(queued).toBe(1);
    expect(said.join('\n')).toMatch(/4 of 10 records have one; an enrichment run fills the rest/);
  });

  it('does not queue one when every record has a vector', async () => {
    embedded = 10;
    let queued = 0;
    await fillRecordVectors(
      () => undefined,
      {},
      url,
      async () => {
        queued++;
        return { status: 0, stderr: '' };
      },
    );
    expect(queued).toBe(0);
  });

  it('warns and carries on when the run cannot be queued (searches stay lexical)', async () => {
    embedded = 0;
    const said: string[] = [];
    await expect(
      fillRecordVectors(
        (m) => said.push(m),
        {},
        url,
        async () => ({ status: 1, stderr: 'Redis refused the connection' }),
      ),
    ).resolves.toBeUndefined();
    expect(said.join('\n')).toMatch(/warning: .*could not queue.*Redis refused the connection.*lexical/);
  });

  it('warns and carries on when the vectors cannot be counted', async () => {
    const said: string[] = [];
    await expect(
      fillRecordVectors(
        (m) => said.push(m),
        {},
        'http://127.0.0.1:1',
        async () => ({ status: 0, stderr: '' }),
      ),
    ).resolves.toBeUndefined();
    expect(said.join('\n')).toMatch(/warning: .*lexical/);
  });
});
