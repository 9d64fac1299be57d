// The cluster's shape from its instance counts: which process listens where, and the HAProxy
// backends in front of them. Pure data, so `cluster.ts`, its control channel and the chaos bench
// agree on one picture.
// Its ports are the cluster's part of the port map (@fragrance/config).
import { CLUSTER_MAX_INSTANCES, CLUSTER_PORTS, clusterInstancePorts, STACK_SERVICES, type StackService } from '@fragrance/config';
import type { ScrapeTarget } from '@fragrance/metrics';
import type { HaproxyBackend } from '@fragrance/stack';

export const SERVICES = STACK_SERVICES;
export type ServiceName = StackService;
export type Counts = Record<ServiceName, number>;

export const DEFAULT_COUNTS: Counts = { gateway: 2, catalogue: 2, auth: 2, mcp: 2, worker: 2 };
export const MAX_INSTANCES = CLUSTER_MAX_INSTANCES;

/** The public edge; the gateways sit behind it. */
export const EDGE_PORT = CLUSTER_PORTS.edge;
/** Loopback frontends for service-to-service calls (and the services' Elasticsearch). */
export const INTERNAL_PORTS = CLUSTER_PORTS.internal;

export const ES_NODES = CLUSTER_PORTS.elasticsearchNodes;
// Not 9200: the dev Elasticsearch the benches and `npm run infra:start` run there may be up.
export const ES_HTTP_PORT = CLUSTER_PORTS.elasticsearch; // nodes on 9210..9212, transport 9310..9312
// Not 6379/6380: the dev Redis (`npm run infra:start`, the benches) may be up there.
export const REDIS_PRIMARY_PORT = CLUSTER_PORTS.redisPrimary;
export const REDIS_REPLICA_PORT = CLUSTER_PORTS.redisReplica;
export const SENTINEL_PORTS = CLUSTER_PORTS.sentinels;
export const SENTINEL_NAME = 'fcs-redis';
export const ES_CLUSTER_NAME = 'cluster';
/** The cluster's Prometheus: the port `npm run ops -- status` reads by default (PROMETHEUS_URL). */
export const PROMETHEUS_PORT = CLUSTER_PORTS.prometheus;

export interface Instance {
  /** `gateway-1`: the supervisor's and HAProxy's name for it. */
  name: string;
  service: ServiceName;
  index: number;
  port: number;
  /** Its /metrics port (METRICS_PORT): the instance port + 1000, so every instance has its own. */
  metricsPort: number;
}

export function instancesOf(counts: Counts): Instance[] {
  return SERVICES.flatMap((service) =>
    Array.from({ length: counts[service] }, (_, i) => {
      const { http, metrics } = clusterInstancePorts(service, i + 1);
      return { name: `${service}-${i + 1}`, service, index: i + 1, port: http, metricsPort: metrics };
    }),
  );
}

/**
 * The header the edge sets on every client request (overwriting the client's) to a fresh id, the
 * same on each retry of it; the gateways admit under it (TRUST_EDGE_REQUEST_ID), so a request the
 * edge retries on another gateway after the first one admitted it is counted once.
 */
export const EDGE_REQUEST_ID_HEADER = 'X-Edge-Request-Id';

/**
 * A refresh-token grant is safe to repeat after send: the auth service answers a repeat in the
 * same grant (a rotated token stays usable until a successor is used, docs/oauth.md). Code
 * exchanges, sign-in and registration are never replayed.
 */
const REFRESH_GRANT = { path: '/oauth/token', param: 'grant_type', value: 'refresh_token' };

/** HAProxy backends: the edge (gateways), one internal frontend per called service, and Elasticsearch. */
export function backendsOf(instances: Instance[], readyPath: string): HaproxyBackend[] {
  const servers = (service: ServiceName) => instances.filter((i) => i.service === service).map(({ name, port }) => ({ name, port }));
  return [
    {
      name: 'gateway',
      frontendPort: EDGE_PORT,
      check: readyPath,
      servers: servers('gateway'),
      // MCP tool calls are read-only (and not metered): the one POST safe to repeat at the edge.
      // Token, sign-in and registration POSTs are never replayed.
      retryPostPaths: ['/mcp'],
      retryPostForm: REFRESH_GRANT,
      requestIdHeader: EDGE_REQUEST_ID_HEADER,
      forwardFor: true,
    },
    { name: 'catalogue', frontendPort: INTERNAL_PORTS.catalogue, check: readyPath, servers: servers('catalogue') },
    { name: 'auth', frontendPort: INTERNAL_PORTS.auth, check: readyPath, servers: servers('auth'), retryPostForm: REFRESH_GRANT },
    // MCP tool calls are read-only searches: a POST the instance died on is safe to repeat.
    { name: 'mcp', frontendPort: INTERNAL_PORTS.mcp, check: readyPath, servers: servers('mcp'), retryPostAfterSend: true },
    {
      name: 'elasticsearch',
      frontendPort: INTERNAL_PORTS.elasticsearch,
      check: '/_cluster/health?local=true',
      servers: Array.from({ length: ES_NODES }, (_, i) => ({ name: `es-${i + 1}`, port: ES_HTTP_PORT + i })),
    },
  ];
}

/** Prometheus scrape targets: every instance's metrics port, the workers' included, one job per service. */
export function scrapeTargetsOf(instances: Instance[]): ScrapeTarget[] {
  return instances.map(({ service, metricsPort }) => ({ service, address: `127.0.0.1:${metricsPort}` }));
}

/** `--gateway 3 --catalogue 2 …` over the defaults; a clear error for anything else. */
export function parseCounts(args: string[]): { counts: Counts; replicas: number } {
  const counts = { ...DEFAULT_COUNTS };
  let replicas = 1;
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i] ?? '';
    const value = args[i + 1];
    const name = flag.replace(/^--/, '');
    const number = Number(value);
    if (!flag.startsWith('--') || value === undefined || !Number.isInteger(number)) {
      throw new Error(`expected --<service> <count> or --es-replicas <n>, got "${[flag, value].filter(Boolean).join(' ')}"`);
    }
    if (name === 'es-replicas') {
      if (number < 0 || number >= ES_NODES) throw new Error(`--es-replicas must be 0..${ES_NODES - 1}`);
      replicas = number;
    } else if ((SERVICES as readonly string[]).includes(name)) {
      if (number < 1 || number > MAX_INSTANCES) throw new Error(`--${name} must be 1..${MAX_INSTANCES}`);
      counts[name as ServiceName] = number;
    } else {
      throw new Error(`unknown option ${flag}; services are ${SERVICES.join(', ')}`);
    }
  }
  return { counts, replicas };
}
