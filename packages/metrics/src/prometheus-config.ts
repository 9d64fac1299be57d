/**
 * Writes a Prometheus configuration scraping the given targets (each service's METRICS_PORT),
 * with the project's recording and alert rules (infra/prometheus/rules). Used by
 * `npm start --with-prometheus`, the cluster and scripts/prometheus-config.ts. The output is JSON,
 * which is also YAML: no YAML writer needed.
 */
export interface ScrapeTarget {
  /** gateway, catalogue, auth, mcp, worker: becomes the scrape job (and the `job` label). */
  service: string;
  /** host:port of the instance's metrics server. */
  address: string;
}

export interface PrometheusConfigOptions {
  targets: readonly ScrapeTarget[];
  /** Absolute paths (globs allowed) of the rule files to load. */
  ruleFiles: readonly string[];
  /** Default 15s; tests and try-outs use shorter. */
  scrapeInterval?: string;
  evaluationInterval?: string;
}

const DURATION = /^\d+(ms|s|m|h)$/;
const ADDRESS = /^[A-Za-z0-9.-]+:\d{1,5}$/;
const SERVICE = /^[a-z][a-z0-9_-]*$/;

export function prometheusConfig(options: PrometheusConfigOptions): string {
  const scrapeInterval = options.scrapeInterval ?? '15s';
  const evaluationInterval = options.evaluationInterval ?? scrapeInterval;
  for (const interval of [scrapeInterval, evaluationInterval]) {
    if (!DURATION.test(interval)) throw new Error(`interval ${JSON.stringify(interval)} is not a Prometheus duration such as 15s`);
  }
  if (options.targets.length === 0) throw new Error('no scrape targets: give at least one service=host:port');
  const byService = new Map<string, string[]>();
  for (const { service, address } of options.targets) {
    if (!SERVICE.test(service)) throw new Error(`service name ${JSON.stringify(service)} must be lower-case letters, digits, - or _`);
    if (!ADDRESS.test(address)) throw new Error(`target ${JSON.stringify(address)} of ${service} must be host:port`);
    byService.set(service, [...(byService.get(service) ?? []), address]);
  }
  const config = {
    global: { scrape_interval: scrapeInterval, evaluation_interval: evaluationInterval },
    rule_files: [...options.ruleFiles],
    scrape_configs: [...byService].map(([service, addresses]) => ({
      job_name: service,
      metrics_path: '/metrics',
      static_configs: [{ targets: addresses }],
    })),
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** Parses `service=host:port` arguments (the CLI's and the cluster's form). */
export function parseTargets(specs: readonly string[]): ScrapeTarget[] {
  return specs.map((spec) => {
    const [service, address, ...rest] = spec.split('=');
    if (!service || !address || rest.length > 0) throw new Error(`target ${JSON.stringify(spec)} must be service=host:port`);
    return { service, address };
  });
}
