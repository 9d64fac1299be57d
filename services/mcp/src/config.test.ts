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

describe('MCP config: MCP_ALLOWED_ORIGINS', () => {
  it('defaults to the origin of MCP_URL, plus the Inspector web UI only when MCP_URL is loopback (development)', () => {
    expect(loadConfig({}).MCP_ALLOWED_ORIGINS).toEqual(['http://127.0.0.1:8080', 'http://localhost:6274', 'http://127.0.0.1:6274']);
    expect(loadConfig({ MCP_URL: 'https://mcp.example.com' }).MCP_ALLOWED_ORIGINS).toEqual(['https://mcp.example.com']);
  });

  it('takes exact origins as given (replacing the default) and refuses anything that is not an origin', () => {
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000/' }).MCP_ALLOWED_ORIGINS).toEqual([
      'https://a.example',
      'http://localhost:3000',
    ]);
    for (const bad of ['a.example', 'https://a.example/path', '*']) {
      expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: bad })).toThrow(/MCP_ALLOWED_ORIGINS/);
    }
  });
});
