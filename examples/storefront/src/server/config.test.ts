import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '@fragrance/config';
import { loadStorefrontConfig } from './config.ts';

const dir = mkdtempSync(join(tmpdir(), 'storefront-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const KEY = 'fcs_pk_BmNyZAlMxY9kLwX8jKvW7iJuV6hItU5gHsT4fGrS3eF';
const OTHER_KEY = 'fcs_pk_0000000000000000000000000000000000000000000';

function envFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function failure(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('the storefront configuration', () => {
  it('without a key anywhere, names the variable, the missing file and what to run', () => {
    const missing = join(dir, 'absent.env');
    const error = failure(() => loadStorefrontConfig({}, missing));
    expect(error.variables).toEqual(['STOREFRONT_PUBLISHABLE_KEY']);
    expect(error.message).toContain(`STOREFRONT_PUBLISHABLE_KEY: is not set and ${missing} does not exist`);
    expect(error.message).toContain('run `npm start`');
    expect(error.message).toContain('npm run ops -- keys create --publishable');
  });

  it('with a file that lacks the key, says it is in neither place', () => {
    const file = envFile('no-key.env', 'STOREFRONT_API_URL=http://127.0.0.1:8080/v1\n');
    expect(failure(() => loadStorefrontConfig({ STOREFRONT_PUBLISHABLE_KEY: '' }, file)).message).toContain(
      `is set neither in the environment nor in ${file}`,
    );
  });

  it('reads the file npm start writes, with defaults for the rest', () => {
    const file = envFile(
      '.env.local',
      `# written by npm start\nSTOREFRONT_PUBLISHABLE_KEY=${KEY}\nSTOREFRONT_API_URL=http://127.0.0.1:8080/v1/\n`,
    );
    expect(loadStorefrontConfig({}, file)).toEqual({
      STOREFRONT_PUBLISHABLE_KEY: KEY,
      STOREFRONT_API_URL: 'http://127.0.0.1:8080/v1',
      STOREFRONT_HOST: '127.0.0.1',
      STOREFRONT_PORT: 8090,
    });
  });

  it('lets the environment override the file', () => {
    const file = envFile('both.env', `STOREFRONT_PUBLISHABLE_KEY=${KEY}\nSTOREFRONT_API_URL=http://127.0.0.1:8080/v1\n`);
    const config = loadStorefrontConfig(
      { STOREFRONT_PUBLISHABLE_KEY: OTHER_KEY, STOREFRONT_API_URL: 'https://api.example/v1', STOREFRONT_PORT: '9000' },
      file,
    );
    expect(config).toMatchObject({
      STOREFRONT_PUBLISHABLE_KEY: OTHER_KEY,
      STOREFRONT_API_URL: 'https://api.example/v1',
      STOREFRONT_PORT: 9000,
    });
  });

  it('refuses a secret key, which must never be sent to browsers', () => {
    const error = failure(() =>
      loadStorefrontConfig({ STOREFRONT_PUBLISHABLE_KEY: 'fcs_BmNyZAlMxY9kLwX8jKvW7iJuV6hItU5gHsT4fGrS3eF' }, join(dir, 'absent.env')),
    );
    expect(error.variables).toEqual(['STOREFRONT_PUBLISHABLE_KEY']);
    expect(error.message).toContain('must be a publishable key (fcs_pk_…)');
    expect(error.message).not.toContain('BmNyZ');
  });

  it('names a bad API address or port', () => {
    const error = failure(() =>
      loadStorefrontConfig(
        { STOREFRONT_PUBLISHABLE_KEY: KEY, STOREFRONT_API_URL: 'ftp://x', STOREFRONT_PORT: '70000' },
        join(dir, 'absent.env'),
      ),
    );
    expect([...error.variables].sort()).toEqual(['STOREFRONT_API_URL', 'STOREFRONT_PORT']);
  });
});
