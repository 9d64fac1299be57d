import { readFile } from 'node:fs/promises';
import { build } from 'esbuild';

const ROOT = new URL('../../', import.meta.url);
const PAGE_ENTRY = new URL('src/page/main.ts', ROOT);
const PUBLIC = new URL('public/', ROOT);
/** Where index.html takes the page's configuration. */
const CONFIG_SLOT = '<!-- STOREFRONT_CONFIG -->';

/** One file of the page: its bytes and content type. */
export interface Asset {
  body: Buffer;
  type: string;
}
/** The files the page is made of, keyed by their path on the server. */
export type Assets = ReadonlyMap<string, Asset>;

/** What the browser needs to call the API, embedded in index.html (a publishable key is public by design). */
export interface PageSettings {
  apiUrl: string;
  publishableKey: string;
}

/**
 * The page's TypeScript as one browser bundle, built here, offline, by esbuild (no CDN, nothing
 * fetched): modern browsers' ES2022, minified, with a source map beside it.
 */
export async function bundlePage(): Promise<{ js: string; map: string }> {
  const result = await build({
    entryPoints: [decodeURIComponent(PAGE_ENTRY.pathname)],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    sourcemap: 'external',
    outfile: 'app.js',
    write: false,
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((file) => file.path.endsWith('.js'));
  const map = result.outputFiles.find((file) => file.path.endsWith('.js.map'));
  if (js === undefined || map === undefined) throw new Error('esbuild wrote no app.js');
  return { js: `${js.text}//# sourceMappingURL=app.js.map\n`, map: map.text };
}

/** index.html with `settings` as a JSON data block (inert: no script runs from it), `<` escaped so no value can end the block. */
export function pageHtml(template: string, settings: PageSettings): string {
  const json = JSON.stringify(settings).replaceAll('<', '\\u003c');
  const block = `<script type="application/json" id="storefront-config">${json}</script>`;
  if (!template.includes(CONFIG_SLOT)) throw new Error(`index.html has no ${CONFIG_SLOT}`);
  return template.replace(CONFIG_SLOT, block);
}

/** Every file of the page, built and ready to serve or write out. */
export async function buildAssets(settings: PageSettings): Promise<Assets> {
  const [{ js, map }, html, css] = await Promise.all([
    bundlePage(),
    readFile(new URL('index.html', PUBLIC), 'utf8'),
    readFile(new URL('storefront.css', PUBLIC)),
  ]);
  return new Map([
    ['/', { body: Buffer.from(pageHtml(html, settings)), type: 'text/html; charset=utf-8' }],
    ['/app.js', { body: Buffer.from(js), type: 'text/javascript; charset=utf-8' }],
    ['/app.js.map', { body: Buffer.from(map), type: 'application/json; charset=utf-8' }],
    ['/storefront.css', { body: css, type: 'text/css; charset=utf-8' }],
  ]);
}
