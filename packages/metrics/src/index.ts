/**
 * @fragrance/metrics: Prometheus metrics for every service (prom-client). One registry per
 * process, the HTTP request middleware, and the loopback-only /metrics server. Each service
 * defines its own metrics beside its code with the re-exported Counter, Gauge and Histogram.
 */
export { configureMetrics, metricsRegistry } from './registry.ts';
export { observeDependencies } from './dependencies.ts';
export { httpMetrics } from './http.ts';
export { parseTargets, prometheusConfig, type ScrapeTarget } from './prometheus-config.ts';
export { histogramQuantile, parsePrometheusText, type Sample } from './text-format.ts';
export { serveMetrics, type MetricsServer } from './server.ts';
export { cacheGauges } from './cache-gauges.ts';
export { Counter, Gauge, Histogram } from 'prom-client';
