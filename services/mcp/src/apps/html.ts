import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The views, each a `ui://` resource of its own (they share one bundle; `<body data-view>` picks). */
export const VIEW_NAMES = ['fragrance', 'comparison', 'results'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

const TITLES: Record<ViewName, string> = {
  fragrance: 'Fragrance',
  comparison: 'Fragrance comparison',
  results: 'Fragrance results',
};

const ENTRY = fileURLToPath(new URL('./view/main.ts', import.meta.url));
const STYLES = fileURLToPath(new URL('./view/styles.css', import.meta.url));

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/**
 * The view's own CSP (a `<meta>`, so it holds in any host, whatever the host adds): nothing may be
 * fetched or connected to, only the one inline script and the one stylesheet run (by hash, no
 * 'unsafe-inline' or 'unsafe-eval'), images only as data: URIs, no <base>, no form posts.
 */
export function contentSecurityPolicy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    'img-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** One view as a self-contained HTML document: inline CSS and JS, no URL anywhere. */
export function viewDocument(view: ViewName, script: string, style: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(script, style)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${TITLES[view]}</title>`,
    `<style>${style}</style>`,
    '</head>',
    `<body data-view="${view}">`,
    '<main id="app" aria-live="polite" aria-busy="true"><p>Waiting for the result…</p></main>',
    `<script type="module">${script}</script>`,
    '</body>',
    '</html>',
  ].join('\n');
}

/**
 * Bundles the browser code (ext-apps' App, zod, our renderers) into one ES module, offline, from
 * the installed packages. `</script` cannot occur in the inline script: it would end the element.
 */
async function bundle(): Promise<{ script: string; style: string }> {
  const [result, style] = await Promise.all([
    build({
      entryPoints: [ENTRY],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      logLevel: 'silent',
    }),
    readFile(STYLES, 'utf8'),
  ]);
  const script = result.outputFiles[0]!.text.replaceAll('</script', '<\\/script');
  return { script, style: style.trim() };
}

let documents: Promise<Record<ViewName, string>> | undefined;

/**
 * The views' HTML, built once per process on first use (and kept), or again after a failed build.
 * main.ts builds them at start-up, so the first host to read a view does not wait for esbuild.
 */
export function viewDocuments(): Promise<Record<ViewName, string>> {
  documents ??= bundle().then(
    ({ script, style }) =>
      Object.fromEntries(VIEW_NAMES.map((view) => [view, viewDocument(view, script, style)])) as Record<ViewName, string>,
    (error: unknown) => {
      documents = undefined;
      throw error;
    },
  );
  return documents;
}
