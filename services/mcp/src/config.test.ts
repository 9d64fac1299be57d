import { describe, expect, it } from 'vitest';
import { ConfigError } from '@fragrance/config';
import { loadConfig } from './config.ts';

describe('MCP config: REDIS_PREFIX', () => {
  it('defaults to fcs:, the auth service default, and takes another value as given', () => {
    expect(loadConfig({}).REDIS_PREFIX).toBe('fcs:');
    expect(loadConfig({ REDIS_PREFIX: 'staging:' }).REDIS_PREFIX).toBe('staging:');
  });

  it('refuses a prefix longer than 64 characters, naming the variable', () => {
    expect(() => loadConfig({ REDIS_PREFIX: 'x'.repeat(65) })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_PREFIX: 'x'.repeat(65) })).toThrow(/REDIS_PREFIX/);
  });
});
