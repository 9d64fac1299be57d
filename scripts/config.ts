// What `npm start` and `npm run cluster` read from their environment, parsed once (zod). Nothing
// else in scripts/ reads process.env; `inheritedEnv()` is what the processes they start inherit.
import { z } from 'zod';
import { booleanFlag, parseConfig } from '@fragrance/config';

export const ScriptsConfig = z.object({
  /** Where a stack keeps its state (lock, Redis and Elasticsearch data, cursor secret); default `<repo>/.local`. */
  FRAGRANCE_LOCAL_DIR: z.string().min(1).optional(),
  /** The catalogue's cursor key; default: one generated on the first start and kept in .local. */
  CURSOR_SECRET: z.string().min(1).optional(),
  /** The services' log level; the cluster's default is warn (HAProxy's checks would drown the terminal at info). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  /** The caller's node flags; the gateway's own are added to them. */
  NODE_OPTIONS: z.string().optional(),
  /** `npm start --with-prometheus`: npm passes the flag on as this variable. */
  npm_config_with_prometheus: booleanFlag(false),
});

export const scriptsConfig = parseConfig(ScriptsConfig, process.env);

/** The environment the stack's processes inherit (PATH, the caller's REDIS_PREFIX, …). */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return { ...process.env };
}
