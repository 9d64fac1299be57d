import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '@fragrance/config';
import { ChaosBenchConfig, DEFAULT_ES, GatewayBenchConfig, SearchBenchConfig } from './config.ts';

describe('bench configuration', () => {
  it('takes the documented defaults from an empty environment', () => {
    const search = parseConfig(SearchBenchConfig, {});
    expect(search).toMatchObject({ ELASTICSEARCH_URL: DEFAULT_ES, BENCH_CONCURRENCY: 32, BENCH_DRIVER: 'raw', BENCH_METRICS_OFF: false });
    expect(search.BENCH_PORT_BASE).toBeUndefined();
    expect(parseConfig(GatewayBenchConfig, {})).toMatchObject({ BENCH_SEARCH: 'lexical', BENCH_BASELINE_ENV: {}, BENCH_FLOOR: false });
  });

  it('reads the values it is given', () => {
    const config = parseConfig(SearchBenchConfig, { BENCH_DURATION_S: '2.5', BENCH_METRICS_OFF: '1', BENCH_PORT_BASE: '19000' });
    expect(config).toMatchObject({ BENCH_DURATION_S: 2.5, BENCH_METRICS_OFF: true, BENCH_PORT_BASE: 19000 });
    expect(parseConfig(ChaosBenchConfig, { BENCH_CHAOS_FAULTS: 'es, redis' }).BENCH_CHAOS_FAULTS).toEqual(new Set(['es', 'redis']));
  });

  it('refuses a bad value naming the variable, before the bench starts anything', () => {
    const refused = (schema: Parameters<typeof parseConfig>[0], env: Record<string, string>) => {
      try {
        parseConfig(schema, env);
      } catch (error) {
        return error instanceof ConfigError ? error.variables : error;
      }
      return [];
    };
    expect(refused(SearchBenchConfig, { BENCH_CONCURRENCY: 'lots' })).toEqual(['BENCH_CONCURRENCY']);
    expect(refused(SearchBenchConfig, { BENCH_DRIVER: 'fast' })).toEqual(['BENCH_DRIVER']);
    expect(refused(GatewayBenchConfig, { BENCH_BASELINE_ENV: '{"LOG_LEVEL": 3}' })).toEqual(['BENCH_BASELINE_ENV']);
  });
});
