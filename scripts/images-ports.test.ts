// `npm run images` smoke-starts every image beside whatever runs: its services, their metrics
// ports and its own Elasticsearch and Redis must not be any port `npm start` binds (the catalogue
// image once took metrics port 9481 from a running stack and never became ready).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { devStackPortUses, STACK_SERVICES } from '@fragrance/config';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function imagesPorts(): Record<string, number> {
  const printed = spawnSync(process.execPath, ['scripts/images-ports.ts'], { cwd: ROOT, encoding: 'utf8' });
  expect(printed.status, printed.stderr).toBe(0);
  return Object.fromEntries(
    printed.stdout
      .trim()
      .split('\n')
      .map((line) => {
        const [name = '', value = ''] = line.split('=');
        return [name, Number(value)];
      }),
  );
}

describe('the images smoke run', () => {
  it('takes no port a running npm start binds, metrics ports included', () => {
    const ports = imagesPorts();
    const smoke = Object.entries(ports).filter(([name]) => name.startsWith('SMOKE_'));
    expect(smoke).toHaveLength(STACK_SERVICES.length * 2 + 2);
    const dev = devStackPortUses();
    const stack = new Map([...dev.services, ...dev.infra].map((use) => [use.port, use.what]));
    for (const [name, port] of smoke) expect(stack.get(port), `${name}=${port}`).toBeUndefined();
    expect(new Set(smoke.map(([, port]) => port)).size).toBe(smoke.length);
  });

  it('builds each image for the port npm start runs it on', () => {
    const ports = imagesPorts();
    for (const { port, what } of devStackPortUses().services.filter((use) => !use.what.endsWith('metrics')))
      expect(ports[`DEFAULT_PORT_${what}`]).toBe(port);
  });

  it('gives every smoke-started service its own port and metrics port', () => {
    const script = readFileSync(`${ROOT}infra/images/build.sh`, 'utf8');
    const run = script.split('\n').find((line) => line.includes('run -d --network host'));
    expect(run).toContain('-e "PORT=$port"');
    expect(run).toContain('-e "METRICS_PORT=$(metrics_port_of "$name")"');
  });
});
