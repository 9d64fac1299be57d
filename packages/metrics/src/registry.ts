import { collectDefaultMetrics, register } from 'prom-client';

/**
 * The process's one registry (prom-client's default): every metric a service defines, the HTTP
 * middleware's and the default process/runtime ones, is exposed together on its metrics port.
 */
export const metricsRegistry = register;

let enabled = true;
let configured = false;

export interface MetricsSettings {
  /** The service's name: a `service` label on every series it exposes. */
  service: string;
  /** METRICS_ENABLED: false turns the HTTP middleware into a pass-through and serves nothing. */
  enabled: boolean;
}

/**
 * Called once by main.ts before the app is built. Labels every series with the service and
 * starts collecting the default process metrics (CPU, memory, event-loop lag, GC, handles).
 */
export function configureMetrics({ service, enabled: on }: MetricsSettings): void {
  enabled = on;
  if (configured || !on) return;
  configured = true;
  register.setDefaultLabels({ service });
  collectDefaultMetrics({ register });
}

/** Whether metrics are collected (METRICS_ENABLED; true unless main.ts said otherwise). */
export const metricsEnabled = (): boolean => enabled;
