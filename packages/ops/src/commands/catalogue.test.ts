import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FragranceDetail } from '@fragrance/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError, type CommandContext } from '../command.ts';
import { catalogueGroup } from './catalogue.ts';

const generate = catalogueGroup.commands.generate;
const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));

function context(argv: string[]): { ctx: CommandContext; out: () => string } {
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  return {
    ctx: { argv, env: {}, stdout, stderr: new PassThrough(), stdin: new PassThrough() },
    out: () => Buffer.concat(chunks).toString('utf8'),
  };
}

describe('ops catalogue generate', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ops-catalogue-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes --count records and the feed into --out and says what it wrote', async () => {
    if (!generate) throw new Error('generate command missing');
    const out = join(dir, 'gen');
    const { ctx, out: stdout } = context(['--count', '500', '--seed', '9', '--out', out]);
    await generate.run(ctx);
    const lines = (await readFile(join(out, 'catalogue.ndjson'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(500);
    for (const line of lines) expect(FragranceDetail.safeParse(JSON.parse(line)).success).toBe(true);
    const feed = (await readFile(join(out, 'au-retailer-feed.ndjson'), 'utf8')).trimEnd().split('\n');
    expect(feed.length).toBeGreaterThan(20);
    expect(stdout()).toContain('500 records');
    expect(stdout()).toContain(join(out, 'catalogue.ndjson'));
    expect(stdout()).toContain(`${feed.length} lines`);
  });

  it.each([
    [['--count', '-5']],
    [['--count=-5']],
    [['--count', 'abc']],
    [['--count', '0']],
    [['--count', '1.5']],
    [['--count', '99999999']],
    [['--seed', 'x']],
    [['--seed', '-1']],
    [['--out', '']],
    [['--colour', 'red']],
    [['stray']],
  ])('rejects %j as a usage error', async (argv) => {
    if (!generate) throw new Error('generate command missing');
    const { ctx } = context(argv.includes('--out') ? argv : [...argv, '--out', join(dir, 'never')]);
    await expect(generate.run(ctx)).rejects.toThrow(UsageError);
    await expect(readFile(join(dir, 'never', 'catalogue.ndjson'))).rejects.toThrow();
  });

  it('exits 2 with the usage line through the real CLI', async () => {
    const run = promisify(execFile);
    for (const bad of ['-5', 'abc']) {
      const failure = await run(process.execPath, [cli, 'catalogue', 'generate', '--count', bad, '--out', join(dir, 'cli')]).then(
        () => null,
        (error: unknown) => error as { code?: number; stderr?: string },
      );
      expect(failure?.code).toBe(2);
      expect(failure?.stderr).toContain('usage: npm run ops -- catalogue generate');
    }
  });
});
