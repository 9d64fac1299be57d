import { Gauge } from 'prom-client';
import { metricsRegistry } from './registry.ts';

/** Answers whether a dependency is reachable right now; false (or a throw) means down. */
export type DependencyProbe = () => boolean | Promise<boolean>;

/**
 * `dependency_up{dependency}`: 1 when the service can reach Redis/Elasticsearch at scrape time,
 * else 0. The "unreachable" alerts fire on it even when no traffic arrives to fail.
 */
export function observeDependencies(probes: Readonly<Record<string, DependencyProbe>>): void {
  // Tests build several apps in one process; the latest probes win.
  metricsRegistry.removeSingleMetric('dependency_up');
  new Gauge({
    name: 'dependency_up',
    help: 'Whether a dependency (redis, elasticsearch) answered the last probe: 1 up, 0 down.',
    labelNames: ['dependency'] as const,
    async collect() {
      await Promise.all(
        Object.entries(probes).map(async ([dependency, probe]) => {
          const up = await Promise.resolve()
            .then(probe)
            .catch(() => false);
          this.set({ dependency }, up ? 1 : 0);
        }),
      );
    },
  });
}
