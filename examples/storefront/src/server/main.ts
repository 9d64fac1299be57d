// `npm run example:storefront`: builds the page and serves it on its own loopback origin
// (http://127.0.0.1:8090) with the publishable key `npm start` wrote to examples/storefront/.env.local.
// `--out <dir>` writes the built files there instead, for any static host (serve them from an
// origin the key allows).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError } from '@fragrance/config';
import { buildAssets } from './assets.ts';
import { loadStorefrontConfig, type StorefrontConfig } from './config.ts';
import { createStorefrontServer } from './server.ts';

const { values } = parseArgs({ options: { out: { type: 'string' } } });

let config: StorefrontConfig;
try {
  config = loadStorefrontConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(2);
}

const assets = await buildAssets({ apiUrl: config.STOREFRONT_API_URL, publishableKey: config.STOREFRONT_PUBLISHABLE_KEY });
if (values.out !== undefined) {
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  for (const [path, asset] of assets) writeFileSync(join(out, path === '/' ? 'index.html' : path.slice(1)), asset.body);
  console.log(`Wrote ${assets.size} files to ${out}`);
} else {
  const server = createStorefrontServer(assets, config.STOREFRONT_API_URL);
  server.once('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE') throw error;
    console.error(
      `${config.STOREFRONT_HOST}:${config.STOREFRONT_PORT} is in use: stop what listens there, or set STOREFRONT_PORT ` +
        "(and add that origin to the publishable key's origins).",
    );
    process.exit(1);
  });
  server.listen(config.STOREFRONT_PORT, config.STOREFRONT_HOST, () => {
    console.log(`Storefront: http://${config.STOREFRONT_HOST}:${config.STOREFRONT_PORT} (API ${config.STOREFRONT_API_URL})`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
