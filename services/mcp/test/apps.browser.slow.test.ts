// The MCP App views in real headless Chromium (Debian's chromium, driven by playwright-core),
// shown by a host built from the ext-apps SDK's own host side (src/testing/apps-host.ts: AppBridge over
// PostMessageTransport, the view in a sandboxed iframe). The SDK client reads each tool's view with
// resources/read from the real app (token verification, rate limit, the real catalogue service over
// Elasticsearch) and calls the tool; the host renders the view from that very result, in the light
// and the dark theme. Checked: the content, readable contrast, keyboard use (Tab to a button, Enter
// or Space asks the host), no console error, and not one network request from a view (its CSP
// refuses even a deliberate fetch). Screenshots go to docs/images/mcp-app-*.png.
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getToolUiResourceUri, type McpUiHostContext } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport, type CallToolResult, type Tool } from '@modelcontextprotocol/client';
import { build } from 'esbuild';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import type { FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { makeRecord } from '@fragrance/search/testing';
import { close, listen, REPO_ROOT } from '@fragrance/testkit';
import { launchChromiumContext } from '@fragrance/testkit/browser';
import type { Shown } from '../src/testing/apps-host.ts';
import { mcpOverCatalogue, mcpStackTest } from '../src/testing/stack.ts';

const IMAGES = join(REPO_ROOT, 'docs', 'images');

function withOffers(record: FragranceDetail): FragranceDetail {
  const seen = '2026-11-20T09:00:00Z';
  record.au_offers = [
    {
      retailer: 'Harbour Perfumery',
      url: 'https://harbour.example/terre-vetiver-100',
      price_aud: 189,
      size_ml: 100,
      in_stock: true,
      seen_at: seen,
    },
    {
      retailer: 'Scent Emporium',
      url: 'https://emporium.example/p/terre-vetiver',
      price_aud: 142.5,
      size_ml: 50,
      in_stock: true,
      seen_at: seen,
    },
    { retailer: 'Outback Beauty', url: 'https://outback.example/tv-100', price_aud: 205, size_ml: 100, in_stock: false, seen_at: seen },
  ];
  record.au_availability = { available: true, price_min_aud: 142.5, price_max_aud: 205, checked_at: seen };
  record.description = 'A dry, mineral vetiver over grapefruit and pepper, settling into cedar and benzoin.';
  return record;
}

const HERO = withOffers(
  makeRecord({
    name: 'Terre de Vétiver',
    brand: 'Maison Aurelle',
    year_released: 2012,
    average: 4.3,
    votes: 1832,
    accords: ['woody', 'earthy', 'citrus', 'aromatic', 'spicy'],
    notes: {
      top: ['grapefruit', 'orange', 'pink pepper'],
      heart: ['vetiver', 'geranium', 'flint'],
      base: ['cedar', 'benzoin', 'patchouli'],
    },
    perfumers: ['Claire Ardoise'],
    available_in_au: true,
  }),
);
const RIVALS = [
  makeRecord({
    name: 'Vétiver Nocturne',
    brand: 'Atelier Brume',
    year_released: 2019,
    average: 4.5,
    votes: 640,
    accords: ['woody', 'smoky', 'earthy'],
    notes: { top: ['bergamot'], heart: ['vetiver', 'incense'], base: ['cedar', 'leather'] },
  }),
  makeRecord({
    name: 'Cédre Vétiver',
    brand: 'Casa Lumen',
    concentration: 'Eau de Toilette',
    year_released: 2008,
    average: 3.9,
    votes: 211,
    accords: ['woody', 'fresh', 'citrus'],
    notes: { top: ['grapefruit', 'lemon'], heart: ['vetiver'], base: ['cedar', 'musk'] },
    available_in_au: true,
  }),
];

const THEMES: Record<'light' | 'dark', McpUiHostContext> = {
  light: { theme: 'light', displayMode: 'inline', locale: 'en-AU', platform: 'web' },
  dark: { theme: 'dark', displayMode: 'inline', locale: 'en-AU', platform: 'web' },
};

/** A host page on its own loopback origin: the page and its bundled host script, nothing else. */
function hostServer(script: string): Server {
  return createServer((req, res) => {
    if (req.url === '/host.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (req.url === '/')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><html lang="en"><title>MCP Apps test host</title><body></body><script src="/host.js"></script></html>');
    res.writeHead(404).end();
  });
}

/** The catalogue service (a process) over the test records, and this server's app in process calling it. */
const it = mcpStackTest.extend('mcp', { scope: 'file' }, ({ es, startStack, startApp }) =>
  mcpOverCatalogue({ es, startStack, startApp }, [HERO, ...RIVALS, ...generateCatalogue({ count: 60, seed: 35 })]),
);

let client: Client;
let tools: Tool[];
let host: Server;
let hostOrigin: string;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const problems: string[] = [];

it.beforeAll(async ({ mcp }) => {
  client = new Client({ name: 'mcp-apps-test-host', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(mcp.endpoint, { requestInit: { headers: { authorization: `Bearer ${mcp.token}` } } }),
  );
  ({ tools } = await client.listTools());

  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../src/testing/apps-host.ts', import.meta.url))],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
  });
  host = hostServer(bundle.outputFiles[0]!.text);
  hostOrigin = await listen(host);

  context = await launchChromiumContext({ viewport: { width: 900, height: 900 } });
  // Every request the browser makes is recorded; only the host page's own two are let through.
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    requests.push(url);
    if (url === `${hostOrigin}/` || url === `${hostOrigin}/host.js`) return route.continue();
    return route.abort();
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(`${hostOrigin}/`);
  mkdirSync(IMAGES, { recursive: true });
}, 180_000);

it.afterAll(async () => {
  await context?.close();
  await client?.close();
  if (host) await close(host);
});

/** As a host does: the tool's view from its _meta (resources/read), the tool's result, both to the page. */
async function showTool(
  name: string,
  args: Record<string, unknown>,
  theme: keyof typeof THEMES | McpUiHostContext,
): Promise<{ frame: Frame; result: CallToolResult }> {
  const tool = tools.find((t) => t.name === name)!;
  const uri = getToolUiResourceUri(tool);
  expect(uri, name).toMatch(/^ui:\/\//);
  const { contents } = await client.readResource({ uri: uri! });
  const view = contents[0] as { text: string; mimeType: string; _meta?: { ui?: { csp?: object } } };
  expect(view.mimeType).toBe('text/html;profile=mcp-app');
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  // Typed loosely on purpose: playwright's serialisable-argument type recurses through a CallToolResult.
  const options: unknown = {
    html: view.text,
    csp: view._meta?.ui?.csp,
    toolName: name,
    toolInput: args,
    toolResult: result,
    hostContext: typeof theme === 'string' ? THEMES[theme] : theme,
  };
  await page.evaluate((o: unknown) => (globalThis as unknown as { fcsHost: { show(o: unknown): Promise<void> } }).fcsHost.show(o), options);
  const srcdoc = () => page.frames().find((f) => f.url() === 'about:srcdoc');
  await expect.poll(() => srcdoc() !== undefined, { timeout: 10_000 }).toBe(true);
  const frame = srcdoc()!;
  await frame.locator('main[aria-busy="false"]').waitFor({ timeout: 15_000 });
  return { frame, result };
}

/** The view's background and text colours and their WCAG contrast ratio. */
function colours(frame: Frame): Promise<{ background: number; contrast: number; scheme: string }> {
  return frame.evaluate(() => {
    interface Styles {
      backgroundColor: string;
      color: string;
      colorScheme: string;
    }
    const g = globalThis as unknown as { getComputedStyle(e: unknown): Styles; document: { body: unknown; documentElement: unknown } };
    const body = g.getComputedStyle(g.document.body);
    const luminance = (css: string) => {
      const [r, gr, b] = (css.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
        const c = Number(v) / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
      return 0.2126 * r + 0.7152 * gr + 0.0722 * b;
    };
    const [bg, fg] = [luminance(body.backgroundColor), luminance(body.color)];
    return {
      background: bg,
      contrast: (Math.max(bg, fg) + 0.05) / (Math.min(bg, fg) + 0.05),
      scheme: g.getComputedStyle(g.document.documentElement).colorScheme,
    };
  });
}

const shownByHost = () => page.evaluate(() => (globalThis as unknown as { fcsHost: { shown: Shown } }).fcsHost.shown);

/** Tabs through the view until a button with this accessible name has the focus (at most 30 presses). */
async function tabTo(frame: Frame, name: RegExp): Promise<void> {
  for (let i = 0; i < 30; i += 1) {
    await page.keyboard.press('Tab');
    const focused = await frame.evaluate(() => {
      const active = (globalThis as unknown as { document: { activeElement: { tagName: string; textContent: string } | null } }).document
        .activeElement;
      return active ? `${active.tagName} ${active.textContent}` : '';
    });
    if (focused.startsWith('BUTTON') && name.test(focused)) return;
  }
  throw new Error(`no button matching ${String(name)} reached with Tab`);
}

describe('MCP App views in a real browser, from real tool results', () => {
  it.each(['light', 'dark'] as const)(
    'shows a fragrance (%s): pyramid, accords, rating, AU offers; an offer opens by keyboard through the host',
    async (theme) => {
      const { frame } = await showTool('get_fragrance', { id: HERO.id }, theme);
      await expect.poll(() => frame.getByRole('heading', { level: 1 }).textContent()).toBe('Terre de Vétiver');
      const text = await frame.locator('body').innerText();
      for (const phrase of [
        'Notes pyramid',
        'Top notes',
        'pink pepper',
        'Heart notes',
        'flint',
        'Base notes',
        'benzoin',
        'Accords',
        'earthy',
        '4.3',
        '1,832 votes',
      ])
        expect(text).toContain(phrase);
      // Offers cheapest first, with the range and the date checked.
      expect(text).toContain('Available from 3 offers, AUD 142.50 to AUD 205.00.');
      const retailers = await frame.locator('table.offers tbody th').allInnerTexts();
      expect(retailers).toEqual(['Scent Emporium', 'Harbour Perfumery', 'Outback Beauty']);

      const { background, contrast, scheme } = await colours(frame);
      expect(scheme).toBe(theme);
      if (theme === 'dark') expect(background).toBeLessThan(0.05);
      else expect(background).toBeGreaterThan(0.9);
      expect(contrast).toBeGreaterThanOrEqual(7);
      await page.locator('iframe#view').screenshot({ path: join(IMAGES, `mcp-app-fragrance-${theme}.png`) });

      // Keyboard only: into the view, Tab to the first offer's button, Enter: the host is asked to open it.
      await frame.locator('h1').click();
      await tabTo(frame, /Open offer at Scent Emporium/);
      await page.keyboard.press('Enter');
      await expect
        .poll(async () => (await shownByHost()).requests)
        .toEqual([{ method: 'open-link', params: { url: 'https://emporium.example/p/terre-vetiver' } }]);
    },
  );

  it.each(['light', 'dark'] as const)(
    'compares three fragrances (%s): shared accords and notes marked, the best rated named',
    async (theme) => {
      const ids = [HERO.id, ...RIVALS.map((r) => r.id)];
      const { frame, result } = await showTool('compare_fragrances', { ids }, theme);
      await expect.poll(() => frame.getByRole('heading', { level: 1 }).textContent()).toBe('Comparing 3 fragrances');
      expect(await frame.locator('table.compare thead th[scope="col"] .name').allInnerTexts()).toEqual([
        'Terre de Vétiver',
        'Vétiver Nocturne',
        'Cédre Vétiver',
      ]);
      expect((result.structuredContent as { shared_accords: string[] }).shared_accords).toEqual(['woody']);
      expect(await frame.locator('li.chip.marked', { hasText: 'woody' }).count()).toBe(3);
      expect(await frame.locator('li.chip.marked', { hasText: 'cedar' }).count()).toBe(3);
      expect(await frame.locator('th:has(.badge) .name').innerText()).toBe('Vétiver Nocturne');
      expect((await colours(frame)).contrast).toBeGreaterThanOrEqual(7);
      await page.locator('iframe#view').screenshot({ path: join(IMAGES, `mcp-app-comparison-${theme}.png`) });

      await frame.locator('h1').click();
      await tabTo(frame, /Ask about it: Cédre Vétiver/);
      await page.keyboard.press('Space');
      await expect
        .poll(async () => (await shownByHost()).requests)
        .toEqual([
          {
            method: 'message',
            params: {
              role: 'user',
              content: [{ type: 'text', text: `Tell me more about Cédre Vétiver (fragrance id ${RIVALS[1]!.id}).` }],
            },
          },
        ]);
    },
  );

  it.each(['light', 'dark'] as const)('lists search results (%s) in order, each with its facts and main accords', async (theme) => {
    const { frame, result } = await showTool('search_fragrances', { query: 'vetiver', limit: 5 }, theme);
    const hits = (result.structuredContent as { data: { name: string }[]; total: number }).data;
    expect(hits.length).toBeGreaterThanOrEqual(3);
    await expect.poll(() => frame.getByRole('heading', { level: 1 }).textContent()).toContain('fragrances matched');
    const titles = await frame.locator('ol.results h2').allInnerTexts();
    expect(titles).toEqual(hits.map((h, i) => `${i + 1}. ${h.name}`));
    expect((await colours(frame)).contrast).toBeGreaterThanOrEqual(7);
    await page.locator('iframe#view').screenshot({ path: join(IMAGES, `mcp-app-results-${theme}.png`) });
  });

  it("follows the host's CSS variables when it sends them, and the reader's colour scheme when it sends no theme", async () => {
    // Host variables win over the view's own palette.
    // A host sends the variables it defines; the type lists every key the spec names.
    const variables = { '--color-background-primary': 'rgb(255, 248, 231)', '--color-text-primary': 'rgb(40, 20, 10)' } as Partial<
      Record<string, string>
    > as NonNullable<NonNullable<McpUiHostContext['styles']>['variables']>;
    const styled: McpUiHostContext = { ...THEMES.light, styles: { variables } };
    let { frame } = await showTool('get_fragrance', { id: HERO.id }, styled);
    expect(
      await frame.evaluate(() => {
        const g = globalThis as unknown as {
          getComputedStyle(e: unknown): { backgroundColor: string; color: string };
          document: { body: unknown };
        };
        const body = g.getComputedStyle(g.document.body);
        return [body.backgroundColor, body.color];
      }),
    ).toEqual(['rgb(255, 248, 231)', 'rgb(40, 20, 10)']);
    // No theme from the host: prefers-color-scheme decides.
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      ({ frame } = await showTool('get_fragrance', { id: HERO.id }, { displayMode: 'inline' }));
      const dark = await colours(frame);
      expect(dark.background).toBeLessThan(0.05);
      expect(dark.contrast).toBeGreaterThanOrEqual(7);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });

  it('made no network request from any view, and its CSP refuses one', async () => {
    expect(problems).toEqual([]);
    expect(
      requests.every((url) => url === `${hostOrigin}/` || url === `${hostOrigin}/host.js`),
      requests.join('\n'),
    ).toBe(true);
    // A deliberate fetch from inside the view (to the host's own server) is refused before the network.
    const { frame } = await showTool('get_fragrance', { id: HERO.id }, 'light');
    const before = requests.length;
    const outcome = await frame.evaluate(
      (url) =>
        fetch(url).then(
          () => 'fetched',
          () => 'refused',
        ),
      `${hostOrigin}/probe`,
    );
    expect(outcome).toBe('refused');
    expect(requests.slice(before)).toEqual([]);
    expect(problems.some((p) => p.includes('Content Security Policy'))).toBe(true);
  });
});
