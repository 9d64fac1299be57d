/**
 * @fragrance/metrics: Prometheus metrics for every service (prom-client). One registry per
 * process, the HTTP request middleware, and the loopback-only /metrics server. Each service
 * defines its own metrics beside its code with the re-exported Counter, Gauge and Histogram.
 */
export { configureMetrics, metricsEnabled, metricsRegistry, type MetricsSettings } from './registry.ts';
export { observeDependencies, type DependencyProbe } from './dependencies.ts';
export { httpMetrics, httpRequestDuration, routeLabel, type HttpMetricsOptions } from './http.ts';
export { parseTargets, prometheusConfig, type PrometheusConfigOptions, type ScrapeTarget } from './prometheus-config.ts';
export { histogramQuantile, parsePrometheusText, type Sample } from './text-format.ts';
export { serveMetrics, type MetricsServer, type MetricsServerOptions } from './server.ts';
export { cacheGauges, type ObservedCache } from './cache-gauges.ts';
export { Counter, Gauge, Histogram } from 'prom-client';
