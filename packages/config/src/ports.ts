// The one port map of the project: every fixed port a local stack, the test instances, the image
// smoke run and the cluster bind. Services take their default PORT/METRICS_PORT from it, the
// stack scripts and the operator CLI their targets; ports.test.ts checks that whatever may run at
// the same time never shares a port. Anything else (tests, benches) binds port 0.

export const STACK_SERVICES = ['gateway', 'catalogue', 'auth', 'mcp', 'worker'] as const;
export type StackService = (typeof STACK_SERVICES)[number];

/** A service's HTTP port and its /metrics port. */
export interface ServicePorts {
  http: number;
  metrics: number;
}

/** Every service from two bases, in one order: gateway +0, catalogue +1, auth +2, mcp +3, worker +4. */
export function servicePorts(httpBase: number, metricsBase: number): Record<StackService, ServicePorts> {
  return Object.fromEntries(STACK_SERVICES.map((service, i) => [service, { http: httpBase + i, metrics: metricsBase + i }])) as Record<
    StackService,
    ServicePorts
  >;
}

/** An Elasticsearch node's transport port (infra/elasticsearch.sh): its HTTP port + 100. */
export const transportPortOf = (httpPort: number) => httpPort + 100;

/** `npm start`, and every service's default PORT and METRICS_PORT. */
export const DEV_PORTS = {
  services: servicePorts(8080, 9480),
  elasticsearch: 9200,
  redis: 6379,
  /** `npm start --with-prometheus`, and where `npm run ops -- status` looks by default. */
  prometheus: 9090,
  /** The storefront example (`npm run example:storefront`): its publishable demo key allows this origin. */
  storefront: 8090,
} as const;

/** The shared Elasticsearch and Redis of `npm test` (scripts/test.sh), beside the dev ones. */
export const TEST_PORTS = { elasticsearch: 9250, redis: 6390 } as const;

/**
 * `npm run images`' smoke run (infra/images/build.sh): the images' services, metrics included,
 * and its own Elasticsearch and Redis when no dev ones answer, so it runs beside `npm start`.
 */
export const IMAGES_SMOKE_PORTS = {
  services: servicePorts(17080, 17480),
  elasticsearch: 17200,
  redis: 17379,
} as const;

/** Most instances of one service `npm run cluster` starts (`--gateway 9`). */
export const CLUSTER_MAX_INSTANCES = 9;

/**
 * `npm run cluster`. It shares the edge (8080) and Prometheus (9090) with `npm start` on purpose
 * (the same URLs); the stack lock lets only one of the two run.
 */
export const CLUSTER_PORTS = {
  /** HAProxy's public edge; the gateways sit behind it. */
  edge: DEV_PORTS.services.gateway.http,
  /** Loopback frontends for service-to-service calls (and the services' Elasticsearch). */
  internal: { catalogue: 18001, auth: 18002, mcp: 18003, elasticsearch: 18009 },
  /** Instance i (1-based) of a service listens on base + i, its metrics on base + 1000 + i. */
  instanceBase: { gateway: 18100, catalogue: 18200, auth: 18300, mcp: 18400, worker: 18500 } satisfies Record<StackService, number>,
  instanceMetricsOffset: 1000,
  /** The first of its Elasticsearch nodes' HTTP ports (one per node, upwards). */
  elasticsearch: 9210,
  elasticsearchNodes: 3,
  redisPrimary: 6381,
  redisReplica: 6382,
  sentinels: [26379, 26380, 26381],
  prometheus: DEV_PORTS.prometheus,
} as const;

/** Instance `index` (1-based) of a cluster service: its HTTP and metrics ports. */
export function clusterInstancePorts(service: StackService, index: number): ServicePorts {
  const http = CLUSTER_PORTS.instanceBase[service] + index;
  return { http, metrics: http + CLUSTER_PORTS.instanceMetricsOffset };
}

/** A port and what binds it, for start-up checks and their error messages. */
export interface PortUse {
  port: number;
  what: string;
}

const servicePortUses = (services: Record<StackService, ServicePorts>, suffix = ''): PortUse[] =>
  STACK_SERVICES.flatMap((service) => [
    { port: services[service].http, what: `${service}${suffix}` },
    { port: services[service].metrics, what: `${service}${suffix} metrics` },
  ]);

const elasticsearchPortUses = (httpPort: number, what: string): PortUse[] => [
  { port: httpPort, what },
  { port: transportPortOf(httpPort), what: `${what} transport` },
];

/** What `npm start` binds: its services (the lock checks these), Elasticsearch, Redis, Prometheus. */
export function devStackPortUses(): { services: PortUse[]; infra: PortUse[] } {
  return {
    services: servicePortUses(DEV_PORTS.services),
    infra: [
      ...elasticsearchPortUses(DEV_PORTS.elasticsearch, 'Elasticsearch'),
      { port: DEV_PORTS.redis, what: 'Redis' },
      { port: DEV_PORTS.prometheus, what: 'Prometheus' },
      { port: DEV_PORTS.storefront, what: 'storefront example' },
    ],
  };
}

/** What `npm test`'s shared instances bind. */
export function testPortUses(): PortUse[] {
  return [...elasticsearchPortUses(TEST_PORTS.elasticsearch, 'test Elasticsearch'), { port: TEST_PORTS.redis, what: 'test Redis' }];
}

/** What `npm run images`' smoke run binds (its own Elasticsearch and Redis included). */
export function imagesSmokePortUses(): PortUse[] {
  return [
    ...servicePortUses(IMAGES_SMOKE_PORTS.services, ' image'),
    ...elasticsearchPortUses(IMAGES_SMOKE_PORTS.elasticsearch, 'images Elasticsearch'),
    { port: IMAGES_SMOKE_PORTS.redis, what: 'images Redis' },
  ];
}

/** What `npm run cluster` binds with `counts` instances of each service. */
export function clusterPortUses(counts: Record<StackService, number>): PortUse[] {
  const { internal, elasticsearch, elasticsearchNodes } = CLUSTER_PORTS;
  return [
    { port: CLUSTER_PORTS.edge, what: 'HAProxy edge' },
    ...Object.entries(internal).map(([what, port]) => ({ port, what: `HAProxy ${what} frontend` })),
    ...STACK_SERVICES.flatMap((service) =>
      Array.from({ length: counts[service] }, (_, i) => {
        const { http, metrics } = clusterInstancePorts(service, i + 1);
        return [
          { port: http, what: `${service}-${i + 1}` },
          { port: metrics, what: `${service}-${i + 1} metrics` },
        ];
      }).flat(),
    ),
    ...Array.from({ length: elasticsearchNodes }, (_, i) => elasticsearchPortUses(elasticsearch + i, `Elasticsearch node ${i + 1}`)).flat(),
    { port: CLUSTER_PORTS.redisPrimary, what: 'Redis primary' },
    { port: CLUSTER_PORTS.redisReplica, what: 'Redis replica' },
    ...CLUSTER_PORTS.sentinels.map((port) => ({ port, what: 'Redis Sentinel' })),
    { port: CLUSTER_PORTS.prometheus, what: 'Prometheus' },
  ];
}
