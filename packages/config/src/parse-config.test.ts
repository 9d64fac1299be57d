import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, parseConfig } from './parse-config.ts';
import { booleanFlag, httpUrl, port, redisUrl } from './fields.ts';

const schema = z.object({
  PORT: port(8080),
  REDIS_URL: redisUrl(),
  UPSTREAM_URL: httpUrl(),
  VERBOSE: booleanFlag(false),
});

const valid = { REDIS_URL: 'redis://127.0.0.1:6379', UPSTREAM_URL: 'http://127.0.0.1:8081/' };

describe('parseConfig', () => {
  it('parses, applies defaults and normalises', () => {
    expect(parseConfig(schema, valid)).toEqual({
      PORT: 8080,
      REDIS_URL: 'redis://127.0.0.1:6379',
      UPSTREAM_URL: 'http://127.0.0.1:8081',
      VERBOSE: false,
    });
  });

  it('rejects a missing variable, naming it', () => {
    expect(() => parseConfig(schema, { UPSTREAM_URL: valid.UPSTREAM_URL })).toThrow(/REDIS_URL: is required/);
  });

  it('treats an empty string as missing', () => {
    expect(() => parseConfig(schema, { ...valid, REDIS_URL: '' })).toThrow(/REDIS_URL/);
  });

  it('rejects invalid values, naming every bad variable', () => {
    let error: unknown;
    try {
      parseConfig(schema, { ...valid, PORT: '70000', REDIS_URL: 'http://nope', VERBOSE: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const configError = error as ConfigError;
    expect(configError.code).toBe('config_invalid');
    expect([...configError.variables].sort()).toEqual(['PORT', 'REDIS_URL', 'VERBOSE']);
    expect(configError.message).toMatch(/PORT: /);
    expect(configError.message).toMatch(/VERBOSE: must be true, false, 1 or 0/);
  });
});

describe('parseConfig on a present but unparseable number', () => {
  it('says what is wrong with it, not that it is missing', () => {
    expect(() => parseConfig(schema, { ...valid, PORT: 'eighty' })).toThrow(/PORT: (?!is required)/);
  });
});
