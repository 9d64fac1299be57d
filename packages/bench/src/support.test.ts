// A bench runs beside a running `npm start`: every service it starts binds its metrics on a free
// port (METRICS_PORT 0), never the stack's 9480-9484. bench:export once started its catalogue on
// the default 9481 and failed while the stack ran.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startBenchService, stopChildren } from './support.ts';

afterAll(() => stopChildren());

describe('the services a bench starts', () => {
  it('get METRICS_PORT 0 whatever the caller passes besides', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-support-'));
    const entry = join(dir, 'print-env.ts');
    writeFileSync(entry, 'process.stdout.write(JSON.stringify({ metrics: process.env.METRICS_PORT, port: process.env.PORT }));\n');
    const child = startBenchService('catalogue', { PORT: '1234' }, 'test', entry);
    expect(await child.exited).toBe(0);
    expect(JSON.parse(child.output())).toEqual({ metrics: '0', port: '1234' });
  });

  it('are started through startBenchService only, never spawned from a bench directly', () => {
    const dir = fileURLToPath(new URL('.', import.meta.url));
    const direct = readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && file !== 'support.ts')
      .filter((file) => /spawn\([^)]*['"`]services\/\w+\/src\/main\.ts/.test(readFileSync(join(dir, file), 'utf8')));
    expect(direct).toEqual([]);
  });
});
