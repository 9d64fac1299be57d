// The port map's part for `npm run images` (infra/images/build.sh), as shell assignments:
//   eval "$(node scripts/images-ports.ts)"
// DEFAULT_PORT_<service>: the port each image listens on by default (npm start's);
// SMOKE_PORT_<service>/SMOKE_METRICS_PORT_<service>: the smoke run's, apart from a running stack's;
// SMOKE_ES_PORT/SMOKE_REDIS_PORT: the smoke run's own Elasticsearch and Redis when none answers.
import { DEV_PORTS, IMAGES_SMOKE_PORTS, STACK_SERVICES } from '@fragrance/config';

const lines = [
  ...STACK_SERVICES.flatMap((service) => [
    `DEFAULT_PORT_${service}=${DEV_PORTS.services[service].http}`,
    `SMOKE_PORT_${service}=${IMAGES_SMOKE_PORTS.services[service].http}`,
    `SMOKE_METRICS_PORT_${service}=${IMAGES_SMOKE_PORTS.services[service].metrics}`,
  ]),
  `SMOKE_ES_PORT=${IMAGES_SMOKE_PORTS.elasticsearch}`,
  `SMOKE_REDIS_PORT=${IMAGES_SMOKE_PORTS.redis}`,
];
process.stdout.write(`${lines.join('\n')}\n`);
