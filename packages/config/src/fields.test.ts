import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, parseConfig } from './parse-config.ts';
import {
  cacheBytes,
  catalogueAlias,
  isValidTimeZone,
  millis,
  redisConnectionFields,
  redisPrefix,
  redisSentinels,
  seconds,
  timeZone,
} from './fields.ts';

/** Parses one variable through a one-field schema; returns the value or the ConfigError. */
function parseOne(field: z.ZodType, value: string | undefined, name = 'THE_VARIABLE'): unknown {
  try {
    return parseConfig(z.object({ [name]: field }), value === undefined ? {} : { [name]: value })[name];
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

/** Every bad value fails with a ConfigError naming exactly that variable, without echoing the value. */
function expectRejected(field: z.ZodType, value: string, message: RegExp, name = 'THE_VARIABLE'): void {
  const result = parseOne(field, value, name);
  expect(result, `${JSON.stringify(value)} should be refused`).toBeInstanceOf(ConfigError);
  const error = result as ConfigError;
  expect(error.variables).toEqual([name]);
  expect(error.message).toMatch(new RegExp(`${name}: ${message.source}`));
  if (value.length > 3) expect(error.message).not.toContain(value);
}

describe('cacheBytes (RESPONSE_CACHE_MAX_BYTES, EDGE_CACHE_MAX_BYTES)', () => {
  it('takes whole bytes from 0 (off) to 4 GiB, and the default when unset', () => {
    expect(parseOne(cacheBytes(1024), undefined)).toBe(1024);
    expect(parseOne(cacheBytes(1024), '0')).toBe(0);
    expect(parseOne(cacheBytes(1024), '33554432')).toBe(33_554_432);
    expectRejected(cacheBytes(1024), '-1', /must be at least 0/, 'EDGE_CACHE_MAX_BYTES');
    expectRejected(cacheBytes(1024), '1.5', /must be a whole number of bytes/, 'EDGE_CACHE_MAX_BYTES');
    expectRejected(cacheBytes(1024), '99999999999', /must be at most 4 GiB/, 'RESPONSE_CACHE_MAX_BYTES');
    expectRejected(cacheBytes(1024), 'lots', /must be a whole number of bytes/, 'RESPONSE_CACHE_MAX_BYTES');
  });
});

describe('redisPrefix (REDIS_PREFIX, JOBS_PREFIX)', () => {
  it('defaults to fcs: and accepts 1 to 64 printable characters', () => {
    expect(parseOne(redisPrefix(), undefined)).toBe('fcs:');
    expect(parseOne(redisPrefix('fcs:jobs'), undefined)).toBe('fcs:jobs');
    for (const good of ['x', 'tenant-a:', 'gateway-3f9a1c2b:', 'a'.repeat(64)]) expect(parseOne(redisPrefix(), good)).toBe(good);
  });

  it('refuses a prefix longer than 64 characters or with spaces, naming the variable', () => {
    expectRejected(redisPrefix(), 'a'.repeat(65), /must be at most 64 characters/, 'REDIS_PREFIX');
    expectRejected(redisPrefix(), 'fcs: ', /must be printable ASCII without spaces/, 'REDIS_PREFIX');
    expectRejected(redisPrefix(), 'fcs:\n', /must be printable ASCII/, 'JOBS_PREFIX');
    expectRejected(redisPrefix(), 'préfixe:', /must be printable ASCII/, 'REDIS_PREFIX');
  });

  it('treats an empty value as unset (the default applies)', () => {
    expect(parseOne(redisPrefix(), '')).toBe('fcs:');
  });
});

describe('catalogueAlias (CATALOGUE_ALIAS)', () => {
  it('defaults to fragrances and accepts lower-case alias names', () => {
    expect(parseOne(catalogueAlias(), undefined)).toBe('fragrances');
    for (const good of ['fragrances', 'test-3f9a1c2b-fragrances', 'a', 'cat_2', '0abc'])
      expect(parseOne(catalogueAlias(), good)).toBe(good);
  });

  it('refuses what Elasticsearch would refuse or misread as a pattern, naming the variable', () => {
    for (const bad of ['Fragrances', '-fragrances', '_all', 'frag*', 'a,b', 'with space', 'a'.repeat(102)])
      expectRejected(catalogueAlias(), bad, /must be a lower-case index alias name/, 'CATALOGUE_ALIAS');
  });
});

describe('timeZone (QUOTA_TIMEZONE, ENRICH_TIMEZONE)', () => {
  it('accepts IANA names and UTC', () => {
    for (const good of ['UTC', 'Australia/Sydney', 'America/Argentina/Buenos_Aires', 'Etc/GMT+10']) {
      expect(isValidTimeZone(good)).toBe(true);
      expect(parseOne(timeZone('UTC'), good)).toBe(good);
    }
    expect(parseOne(timeZone('Australia/Sydney'), undefined)).toBe('Australia/Sydney');
  });

  it('refuses unknown zones and bare offsets, naming the variable', () => {
    for (const bad of ['Mars/Olympus_Mons', 'Atlantis', '+10:00', '-05:00', '10', 'UTC+10'])
      expectRejected(timeZone('UTC'), bad, /must be an IANA time zone such as UTC or Australia\/Sydney/, 'QUOTA_TIMEZONE');
  });
});

describe('millis and seconds (durations)', () => {
  it('parse whole positive numbers and apply the default', () => {
    expect(parseOne(millis(500), undefined)).toBe(500);
    expect(parseOne(millis(500), '1500')).toBe(1500);
    expect(parseOne(seconds(60), undefined)).toBe(60);
    expect(parseOne(seconds(60), '86400')).toBe(86_400);
  });

  it('refuse zero, negatives, fractions and words, naming the variable', () => {
    expectRejected(millis(500), '0', /must be at least 1 ms/, 'REDIS_COMMAND_TIMEOUT_MS');
    expectRejected(millis(500), '-5', /must be at least 1 ms/, 'REDIS_COMMAND_TIMEOUT_MS');
    expectRejected(millis(500), '2.5', /must be a whole number of milliseconds/, 'REDIS_COMMAND_TIMEOUT_MS');
    expectRejected(millis(500), 'soon', /must be a whole number of milliseconds/, 'REDIS_COMMAND_TIMEOUT_MS');
    expectRejected(seconds(60), '0', /must be at least 1 second/, 'SESSION_TTL_SECONDS');
    expectRejected(seconds(60), '1.5', /must be a whole number of seconds/, 'SESSION_TTL_SECONDS');
    expectRejected(seconds(60), 'a day', /must be a whole number of seconds/, 'SESSION_TTL_SECONDS');
  });

  it('refuse milliseconds a Node timer cannot wait (it would fire at once instead)', () => {
    expect(parseOne(millis(500), '2147483647')).toBe(2_147_483_647);
    expectRejected(millis(500), '2147483648', /must be at most 2147483647 ms/, 'SHUTDOWN_TIMEOUT_MS');
  });
});

describe('several bad shared fields at once', () => {
  it('are all reported, each under its own name', () => {
    const schema = z.object({ REDIS_PREFIX: redisPrefix(), CATALOGUE_ALIAS: catalogueAlias(), QUOTA_TIMEZONE: timeZone('UTC') });
    let error: unknown;
    try {
      parseConfig(schema, { REDIS_PREFIX: 'x'.repeat(80), CATALOGUE_ALIAS: 'UPPER', QUOTA_TIMEZONE: 'Nowhere/Land' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect([...(error as ConfigError).variables].sort()).toEqual(['CATALOGUE_ALIAS', 'QUOTA_TIMEZONE', 'REDIS_PREFIX']);
  });
});

describe('REDIS_SENTINELS and the Redis connection fields', () => {
  it('parses host:port lists; unset or empty means no Sentinel', () => {
    expect(parseOne(redisSentinels(), undefined)).toBeUndefined();
    expect(parseOne(redisSentinels(), '')).toBeUndefined();
    expect(parseOne(redisSentinels(), '127.0.0.1:26379')).toEqual([{ host: '127.0.0.1', port: 26379 }]);
    expect(parseOne(redisSentinels(), 'a.example:1,b:2,127.0.0.1:65535')).toEqual([
      { host: 'a.example', port: 1 },
      { host: 'b', port: 2 },
      { host: '127.0.0.1', port: 65535 },
    ]);
  });

  it('refuses anything else, naming the variable', () => {
    for (const bad of ['localhost', '127.0.0.1:', ':26379', 'a:1,,b:2', 'a:1, b:2', 'a:x', 'redis://a:1'])
      expectRejected(redisSentinels(), bad, /must be host:port\[,host:port\.\.\.\]/, 'REDIS_SENTINELS');
    expectRejected(redisSentinels(), 'a:70000', /ports must be 1-65535/, 'REDIS_SENTINELS');
    expectRejected(redisSentinels(), 'a:0', /ports must be 1-65535/, 'REDIS_SENTINELS');
  });

  it('REDIS_URL alone still works; the Sentinel name has a default and a safe shape', () => {
    const schema = z.object(redisConnectionFields());
    expect(parseConfig(schema, { REDIS_URL: 'redis://127.0.0.1:6390' })).toEqual({
      REDIS_URL: 'redis://127.0.0.1:6390',
      REDIS_SENTINEL_NAME: 'fcs-redis',
    });
    expect(parseConfig(schema, { REDIS_SENTINELS: 'h:1', REDIS_SENTINEL_NAME: 'main', REDIS_SENTINEL_PASSWORD: 'pw' })).toMatchObject({
      REDIS_SENTINELS: [{ host: 'h', port: 1 }],
      REDIS_SENTINEL_NAME: 'main',
      REDIS_SENTINEL_PASSWORD: 'pw',
    });
    expect(() => parseConfig(schema, { REDIS_SENTINEL_NAME: 'has space' })).toThrow(/REDIS_SENTINEL_NAME: must be 1-64/);
  });
});
