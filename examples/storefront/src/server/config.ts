import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { ConfigError, DEV_PORTS, host, httpUrl, parseConfig, port } from '@fragrance/config';

/** The gitignored file `npm start` writes with a fresh publishable key and the API's address. */
export const ENV_FILE = new URL('../../.env.local', import.meta.url);

const HOW_TO_GET_A_KEY =
  'run `npm start` (it writes examples/storefront/.env.local), or set it yourself: ' +
  `\`npm run ops -- keys create --publishable --owner <you> --quota 10000 --origin http://127.0.0.1:${DEV_PORTS.storefront}\``;

/**
 * The storefront server's settings, parsed once at start-up. The key is a publishable one
 * (`fcs_pk_…`): it is sent to every browser that opens the page, which is what it is made for; a
 * secret key (`fcs_…` without `pk_`) must never be, so it is refused here.
 */
export const StorefrontConfig = z.object({
  STOREFRONT_PUBLISHABLE_KEY: z.string().regex(/^fcs_pk_[0-9A-Za-z]{43}$/, {
    error: `must be a publishable key (fcs_pk_…); a secret key must never reach a web page: ${HOW_TO_GET_A_KEY}`,
  }),
  /** The data API's base address, ending in /v1, as the browser reaches it. */
  STOREFRONT_API_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.gateway.http}/v1`),
  STOREFRONT_HOST: host(),
  STOREFRONT_PORT: port(DEV_PORTS.storefront),
});
export type StorefrontConfig = z.infer<typeof StorefrontConfig>;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The configuration from `env`, with `examples/storefront/.env.local` (when present) filling what
 * `env` leaves unset. Throws ConfigError naming each bad or missing variable and how to get a key.
 */
export function loadStorefrontConfig(env: Env, envFile: URL | string = ENV_FILE): StorefrontConfig {
  const fileExists = existsSync(envFile);
  const fromFile = fileExists ? parseEnv(readFileSync(envFile, 'utf8')) : {};
  const merged: Env = {
    ...fromFile,
    ...Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== '')),
  };
  if (merged.STOREFRONT_PUBLISHABLE_KEY === undefined || merged.STOREFRONT_PUBLISHABLE_KEY === '') {
    const where = fileExists
      ? `is set neither in the environment nor in ${pathOf(envFile)}`
      : `is not set and ${pathOf(envFile)} does not exist`;
    throw new ConfigError([{ variable: 'STOREFRONT_PUBLISHABLE_KEY', message: `${where}: ${HOW_TO_GET_A_KEY}` }]);
  }
  return parseConfig(StorefrontConfig, merged);
}

function pathOf(file: URL | string): string {
  return typeof file === 'string' ? file : decodeURIComponent(file.pathname);
}
