import {
  Client,
  ResourceNotFoundError,
  StreamableHTTPClientTransport,
  type CallToolResult,
  type ClientOptions,
} from '@modelcontextprotocol/client';
import { describe, expect } from 'vitest';
import type { SearchResponse } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { createLogger } from '@fragrance/http';
import { makeRecord } from '@fragrance/search/testing';
import { catalogueClient, CatalogueUnavailableError, createCatalogue } from '../src/catalogue/catalogue.ts';
import { LISTED_BRANDS, listResourcesPage, RESOURCE_PAGE_SIZE } from '../src/resources/list.ts';
import { mcpOverCatalogue, mcpStackTest, type McpOverCatalogue } from '../src/testing/stack.ts';

// The server's surface (tools, resources, completions, prompts) against the real catalogue service
// over a small catalogue in the test Elasticsearch, through the SDK's own client over Streamable
// HTTP to the real app (a test token), once per protocol revision: the 2025-11-25 `initialize`
// handshake (the stateless transport leg) and 2026-07-28 (`server/discover` and the per-request
// envelope, the createMcpHandler leg); older revisions the SDK accepts are checked to negotiate.
// OAuth sign-in, refresh and the edge are covered by e2e.test.ts and the interop tests.
const NOCTURNE = makeRecord({
  id: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
  name: 'Zygomatic Vetiver Nocturne',
  brand: 'Maison Testière',
  concentration: 'Eau de Parfum',
  notes: { top: ['grapefruit'], heart: ['vetiver'], base: ['cedar'] },
  accords: ['woody', 'earthy', 'citrus'],
  perfumers: ['Quillon Abernathy'],
  available_in_au: true,
  average: 4.4,
  votes: 900,
});
const MATIN = makeRecord({
  id: '7a2e3d4c-5b6f-4071-9b8c-0d1e2f3a4b5c',
  name: 'Zygomatic Matin',
  brand: 'Maison Testière',
  concentration: 'Eau de Toilette',
  notes: { top: ['grapefruit', 'bergamot'], heart: ['neroli'], base: ['cedar', 'musk'] },
  accords: ['citrus', 'woody', 'fresh'],
  perfumers: ['Quillon Abernathy'],
  average: 3.9,
  votes: 400,
});
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The catalogue service (a process) over the test records, and this server's app in process calling it. */
const it = mcpStackTest.extend('mcp', { scope: 'file' }, ({ es, startStack, startApp }) =>
  mcpOverCatalogue({ es, startStack, startApp }, [NOCTURNE, MATIN, ...generateCatalogue({ count: 400, seed: 3 })]),
);

/** An SDK client connected over Streamable HTTP with the test token. */
async function connect(mcp: McpOverCatalogue, options: ClientOptions = {}): Promise<Client> {
  const client = new Client({ name: 'surface-test', version: '1' }, options);
  await client.connect(
    new StreamableHTTPClientTransport(mcp.endpoint, { requestInit: { headers: { authorization: `Bearer ${mcp.token}` } } }),
  );
  return client;
}

const REVISIONS: { revision: string; options: ClientOptions }[] = [
  // The SDK client's default: the plain 2025 handshake at its latest 2025 revision.
  { revision: '2025-11-25', options: {} },
  { revision: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
];

describe.each(REVISIONS)('on $revision', ({ revision, options }) => {
  let client: Client;
  it.beforeAll(async ({ mcp }) => {
    client = await connect(mcp, options);
  });
  it.afterAll(async () => {
    await client?.close();
  });

  it('negotiates the revision', () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(revision);
    expect(client.getServerVersion()?.name).toBe('fragrance-catalogue');
  });

  const call = (name: string, args: Record<string, unknown>): Promise<CallToolResult> => client.callTool({ name, arguments: args });
  const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;
  const jsonOf = (contents: readonly object[]) => {
    const first = contents[0];
    if (!first || !('text' in first) || typeof first.text !== 'string') throw new Error('expected one text content');
    return JSON.parse(first.text) as Record<string, unknown>;
  };

  describe('capabilities and tool list', () => {
    it('declares logging, tools, resources, prompts and completions, none with list changes', () => {
      expect(client.getServerCapabilities()).toMatchObject({
        logging: {},
        tools: { listChanged: false },
        resources: { listChanged: false },
        prompts: { listChanged: false },
        completions: {},
        extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
      });
    });

    // 2026-07-28 has no logging/setLevel (SEP-2577: the level rides in each request's envelope).
    if (revision !== '2026-07-28') {
      it('accepts logging/setLevel with an empty result', async () => {
        // eslint-disable-next-line @typescript-eslint/no-deprecated -- the 2025 method is what this test is about
        await expect(client.setLoggingLevel('warning')).resolves.toEqual({});
      });
    }

    it('lists every tool with a title, read-only annotations, and input and output schemas', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining([
          'search_fragrances',
          'get_fragrance',
          'similar_fragrances',
          'list_facets',
          'suggest',
          'list_brands',
          'get_brand',
          'list_notes',
          'list_accords',
          'list_perfumers',
          'compare_fragrances',
          'discover_fragrances',
        ]),
      );
      for (const tool of tools) {
        expect(tool.title, tool.name).toEqual(expect.any(String));
        expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, openWorldHint: false, idempotentHint: true });
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      }
      const search = tools.find((t) => t.name === 'search_fragrances')!;
      expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(
        expect.arrayContaining(['sort', 'perfumer', 'season', 'occasion', 'rating_min', 'votes_min']),
      );
    });
  });

  describe('tools for the discovery endpoints', () => {
    it('searches with the new filters and sort orders', async () => {
      const byPerfumer = await call('search_fragrances', { perfumer: 'quillon abernathy', sort: 'rating' });
      expect(byPerfumer.isError).toBeFalsy();
      expect((byPerfumer.structuredContent as SearchResponse).data.map((f) => f.id)).toEqual([NOCTURNE.id, MATIN.id]);

      const rated = await call('search_fragrances', { rating_min: 4, votes_min: 10, sort: 'rating', limit: 20 });
      const hits = (rated.structuredContent as SearchResponse).data;
      expect(hits.length).toBeGreaterThan(1);
      for (const hit of hits) expect(hit.rating.average).toBeGreaterThanOrEqual(4);
      const averages = hits.map((h) => h.rating.average ?? 0);
      expect(averages).toEqual([...averages].sort((a, b) => b - a));

      const seasonal = await call('search_fragrances', { season: ['summer'], occasion: ['daily'], limit: 1 });
      expect(seasonal.isError).toBeFalsy();

      const badSort = await call('search_fragrances', { sort: 'price' });
      expect(badSort.isError).toBe(true);
    });

    it('filters by gender, with counts equal to the gender facet', async () => {
      const facets = await call('list_facets', {});
      const genders = (facets.structuredContent as { genders: { value: string; count: number }[] }).genders;
      expect(genders.length).toBeGreaterThan(0);
      for (const { value, count } of genders) {
        const found = await call('search_fragrances', { gender: [value], limit: 1 });
        expect((found.structuredContent as SearchResponse).total, value).toBe(count);
      }
      expect((await call('search_fragrances', { gender: ['other'] })).isError).toBe(true);
    });

    it('lists the new facets', async () => {
      const facets = await call('list_facets', { brand: 'Maison Testière' });
      expect(facets.structuredContent).toMatchObject({ total: 2, notes: expect.arrayContaining([{ value: 'grapefruit', count: 2 }]) });
    });

    it('suggests fragrances, brands, notes and perfumers from a partial name', async () => {
      const result = await call('suggest', { q: 'zygomatic vet' });
      expect(result.isError).toBeFalsy();
      const { data } = result.structuredContent as { data: { type: string; id?: string }[] };
      expect(data[0]).toMatchObject({ type: 'fragrance', id: NOCTURNE.id });
      expect(textOf(result)).toContain(NOCTURNE.id);

      const brands = await call('suggest', { q: 'maison test', types: ['brand'] });
      expect((brands.structuredContent as { data: unknown[] }).data[0]).toMatchObject({ type: 'brand', slug: 'maison-testiere', count: 2 });

      const invalid = await call('suggest', { q: '!!!' });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toContain('q:');
    });

    it('browses brands and one brand, with paging and a not-found', async () => {
      const list = await call('list_brands', { search: 'testiere' });
      expect((list.structuredContent as { data: unknown[] }).data[0]).toMatchObject({ slug: 'maison-testiere', fragrance_count: 2 });
      const paged = await call('list_brands', { limit: 3, offset: 2 });
      expect(paged.structuredContent).toMatchObject({ limit: 3, offset: 2 });
      expect((paged.structuredContent as { data: unknown[] }).data).toHaveLength(3);

      const brand = await call('get_brand', { slug: 'maison-testiere' });
      expect(brand.structuredContent).toMatchObject({ name: 'Maison Testière', perfumers: ['Quillon Abernathy'], fragrance_count: 2 });
      const missing = await call('get_brand', { slug: 'no-such-house' });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/^Not found/);
      const notSlug = await call('get_brand', { slug: 'Not A Slug' });
      expect(notSlug.isError).toBe(true);
      expect(textOf(notSlug)).toContain('slug:');
    });

    it('browses notes, accords and perfumers; counts equal the search totals', async () => {
      const notes = await call('list_notes', { search: 'vetiv' });
      const vetiver = (notes.structuredContent as { data: { slug: string; fragrance_count: number }[] }).data.find(
        (n) => n.slug === 'vetiver',
      )!;
      const search = await call('search_fragrances', { note: ['vetiver'], limit: 1 });
      expect(vetiver.fragrance_count).toBe((search.structuredContent as SearchResponse).total);

      const accords = await call('list_accords', { limit: 5 });
      expect((accords.structuredContent as { data: unknown[]; total: number }).data).toHaveLength(5);
      const perfumers = await call('list_perfumers', { search: 'quillon' });
      expect((perfumers.structuredContent as { data: unknown[] }).data[0]).toMatchObject({ name: 'Quillon Abernathy', fragrance_count: 2 });
      const badWindow = await call('list_notes', { offset: 9_990, limit: 20 });
      expect(badWindow.isError).toBe(true);
      expect(textOf(badWindow)).toContain('offset');
    });

    it('compares fragrances side by side', async () => {
      const result = await call('compare_fragrances', { ids: [NOCTURNE.id, MATIN.id] });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({
        shared_accords: ['woody', 'citrus'],
        shared_notes: { top: ['grapefruit'], heart: [], base: ['cedar'] },
        shared_notes_any_stage: ['grapefruit', 'cedar'],
        best_rated: NOCTURNE.id,
        available_in_au: [NOCTURNE.id],
      });
      const [first, second] = (result.structuredContent as { fragrances: Record<string, unknown>[] }).fragrances;
      expect(first).toMatchObject({ id: NOCTURNE.id, distinct_accords: ['earthy'], distinct_notes: ['vetiver'], notes: NOCTURNE.notes });
      expect(second).toMatchObject({ id: MATIN.id, distinct_accords: ['fresh'], distinct_notes: ['bergamot', 'neroli', 'musk'] });
      expect(textOf(result)).toContain('Shared accords: woody, citrus');
    });

    it('discovers fragrances from a description, each with why it matched', async () => {
      const result = await call('discover_fragrances', { description: 'zygomatic vetiver', limit: 5 });
      expect(result.isError, textOf(result)).toBeFalsy();
      const found = result.structuredContent as { search_mode: string; data: { id: string; why: string[] }[] };
      // Hybrid once record vectors exist; lexical until then (this test catalogue has none, so the
      // description's words must all match).
      expect(['hybrid', 'lexical']).toContain(found.search_mode);
      expect(found.data[0]).toMatchObject({ id: NOCTURNE.id, why: expect.arrayContaining([expect.stringContaining('vetiver')]) });
      expect(textOf(result)).toContain('why:');
    });

    it('refuses to compare one id, a repeated id, or an unknown id, naming the problem', async () => {
      const one = await call('compare_fragrances', { ids: [NOCTURNE.id] });
      expect(one.isError).toBe(true);
      const repeated = await call('compare_fragrances', { ids: [NOCTURNE.id, NOCTURNE.id] });
      expect(repeated.isError).toBe(true);
      expect(textOf(repeated)).toContain('must not repeat an id');
      const unknown = await call('compare_fragrances', { ids: [NOCTURNE.id, UNKNOWN_ID] });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toContain(UNKNOWN_ID);
    });
  });

  describe('MCP Apps (io.modelcontextprotocol/ui)', () => {
    const LINKED = {
      get_fragrance: 'ui://fragrance-catalogue/fragrance.html',
      compare_fragrances: 'ui://fragrance-catalogue/comparison.html',
      search_fragrances: 'ui://fragrance-catalogue/results.html',
      similar_fragrances: 'ui://fragrance-catalogue/results.html',
      discover_fragrances: 'ui://fragrance-catalogue/results.html',
    };

    it('links the fragrance, comparison and result-list tools to their views (and only those)', async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) {
        const uri = LINKED[tool.name as keyof typeof LINKED];
        if (uri) expect(tool._meta, tool.name).toMatchObject({ ui: { resourceUri: uri }, 'ui/resourceUri': uri });
        else expect(tool._meta?.ui, tool.name).toBeUndefined();
      }
    });

    it('reads each view: one self-contained HTML document with a strict CSP and no URL to fetch', async () => {
      for (const uri of new Set(Object.values(LINKED))) {
        const { contents } = await client.readResource({ uri });
        expect(contents).toHaveLength(1);
        const [view] = contents as { uri: string; mimeType: string; text: string; _meta: unknown }[];
        expect(view).toMatchObject({ uri, mimeType: 'text/html;profile=mcp-app', _meta: { ui: { csp: {}, prefersBorder: true } } });
        expect(view!.text).toMatch(/^<!doctype html>/);
        expect(view!.text).toMatch(
          /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+'; style-src 'sha256-[^']+';/,
        );
        // Nothing loaded from anywhere: one inline script and one inline stylesheet; no src or href
        // attribute in the markup, no @import or url() in the styles.
        const style = /<style>([\s\S]*)<\/style>/.exec(view!.text)![1]!;
        const markup = view!.text.replace(/<script type="module">[\s\S]*<\/script>/, '<script></script>').replace(style, '');
        expect(markup.match(/<script/g)).toHaveLength(1);
        expect(markup).not.toMatch(/\s(src|href)=|<link/);
        expect(style).not.toMatch(/@import|url\(/);
      }
    });

    it('keeps the text and structured answers for hosts without Apps', async () => {
      const result = await call('get_fragrance', { id: NOCTURNE.id });
      expect(result.structuredContent).toMatchObject({ id: NOCTURNE.id });
      expect(textOf(result)).toContain('Nocturne');
    });
  });

  describe('resources', () => {
    it('lists the fixed resources, the MCP App views and the top brands, paginated, never more than the cap', async ({ mcp }) => {
      // Without a cursor the SDK client walks every page itself and returns them together.
      const all = await client.listResources();
      expect(all.nextCursor).toBeUndefined();
      expect(all.resources.slice(0, 6).map((r) => r.uri)).toEqual([
        'fragrance://vocabulary/provenance',
        'fragrance://vocabulary/search',
        'fragrance://facets',
        'ui://fragrance-catalogue/fragrance.html',
        'ui://fragrance-catalogue/comparison.html',
        'ui://fragrance-catalogue/results.html',
      ]);
      expect(all.resources[3]).toMatchObject({ mimeType: 'text/html;profile=mcp-app', _meta: { ui: { csp: {}, prefersBorder: true } } });
      const uris = all.resources.map((r) => r.uri);
      expect(new Set(uris).size).toBe(uris.length);
      expect(uris.length).toBeGreaterThan(RESOURCE_PAGE_SIZE);
      expect(uris.length).toBeLessThanOrEqual(6 + LISTED_BRANDS);
      expect(uris).toContain('fragrance://brands/maison-testiere');
      // The pages on the wire: full pages of RESOURCE_PAGE_SIZE, each with the cursor of the next, adding up to the same list.
      const paged: string[] = [];
      const catalogue = createCatalogue({ baseUrl: mcp.catalogueUrl, timeoutMs: 10_000 });
      const ctx = {
        catalogue: catalogue.forRequest('r'),
        logger: createLogger('t', 'silent'),
        caller: { sub: 'u', clientId: 'c', scopes: [] },
        requestId: 'r',
      };
      let cursor: string | undefined = (await listResourcesPage(ctx, undefined)).nextCursor;
      await catalogue.close();
      expect(cursor).toBeDefined();
      paged.push(...uris.slice(0, RESOURCE_PAGE_SIZE));
      while (cursor) {
        const page = await client.listResources({ cursor });
        expect(page.resources.length).toBeLessThanOrEqual(RESOURCE_PAGE_SIZE);
        paged.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      }
      expect(paged).toEqual(uris);
    });

    it('refuses a cursor it did not issue', async () => {
      await expect(client.listResources({ cursor: 'bogus' })).rejects.toMatchObject({ code: -32602 });
    });

    it('lists both templates', async () => {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['fragrance://brands/{slug}', 'fragrance://catalogue/{id}']);
    });

    it('reads a brand: its profile and its fragrances', async () => {
      const { contents } = await client.readResource({ uri: 'fragrance://brands/maison-testiere' });
      const body = jsonOf(contents) as { brand: { name: string }; fragrances: { total: number; top: { id: string }[] } };
      expect(body.brand.name).toBe('Maison Testière');
      expect(body.fragrances.total).toBe(2);
      expect(body.fragrances.top.map((f) => f.id)).toEqual([NOCTURNE.id, MATIN.id]);
    });

    it('reads the fixed resources', async () => {
      const facets = jsonOf((await client.readResource({ uri: 'fragrance://facets' })).contents);
      expect(facets).toMatchObject({ total: 402, brands: expect.any(Array), notes: expect.any(Array), seasons: expect.any(Array) });
      const provenance = jsonOf((await client.readResource({ uri: 'fragrance://vocabulary/provenance' })).contents);
      expect((provenance.sources as { source: string }[]).map((s) => s.source)).toEqual([
        'community_taxonomy',
        'operator_curated',
        'ai_enriched',
        'au_retailer_scrape',
      ]);
      const vocabulary = jsonOf((await client.readResource({ uri: 'fragrance://vocabulary/search' })).contents);
      expect(vocabulary).toMatchObject({ seasons: ['spring', 'summer', 'autumn', 'winter'], sorts: expect.arrayContaining(['rating']) });
    });

    it("answers an unknown brand, fragrance, malformed id or unknown URI with the SDK's resource-not-found error", async () => {
      const unknown = [
        'fragrance://brands/no-such-house',
        `fragrance://catalogue/${UNKNOWN_ID}`,
        'fragrance://catalogue/nope',
        'fragrance://nothing',
      ];
      for (const uri of unknown) {
        const error = await client.readResource({ uri }).catch((e: unknown) => e);
        expect(error, uri).toBeInstanceOf(ResourceNotFoundError);
        // -32602 with data.uri on every revision: 2026-07-28 requires it (SEP-2164); 2025-11-25's text gave
        // -32002 as its example, and the SDK (client included) reads either with data.uri as not-found.
        expect(error, uri).toMatchObject({ code: -32602, data: { uri } });
      }
    });
  });

  describe('completions', () => {
    const complete = async (
      ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string },
      name: string,
      value: string,
    ) => (await client.complete({ ref, argument: { name, value } })).completion.values;

    it('completes the brand slug of the brand template from the suggestion index', async () => {
      expect(await complete({ type: 'ref/resource', uri: 'fragrance://brands/{slug}' }, 'slug', 'maison tes')).toContain('maison-testiere');
      // Nothing typed yet: the brands with most fragrances.
      expect((await complete({ type: 'ref/resource', uri: 'fragrance://brands/{slug}' }, 'slug', '')).length).toBeGreaterThan(5);
    });

    it('completes prompt arguments: notes (the last of a list), accords, brands, perfumers, concentrations, occasions', async () => {
      const prompt = { type: 'ref/prompt', name: 'scent_for_occasion' } as const;
      expect(await complete(prompt, 'liked_notes', 'grapefruit, vetiv')).toContain('grapefruit, vetiver');
      expect(await complete(prompt, 'accords', 'eart')).toContain('earthy');
      expect(await complete(prompt, 'brand', 'maison testi')).toContain('Maison Testière');
      expect(await complete(prompt, 'perfumer', 'quill')).toEqual(['Quillon Abernathy']);
      expect(await complete(prompt, 'concentration', 'eau de p')).toEqual(['Eau de Parfum']);
      expect(await complete(prompt, 'occasion', 'da')).toEqual(['daily', 'date night']);
      expect(await complete(prompt, 'season', 'WIN')).toEqual(['winter']);
      const named = await complete({ type: 'ref/prompt', name: 'find_alternatives' }, 'fragrance', 'zygomatic noct');
      expect(named[0]).toBe('Zygomatic Vetiver Nocturne (Maison Testière)');
    });
  });

  describe('prompts', () => {
    it('lists three prompts with their arguments', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(['compare_named_fragrances', 'find_alternatives', 'scent_for_occasion']);
      const occasion = prompts.find((p) => p.name === 'scent_for_occasion')!;
      expect(occasion.arguments?.find((a) => a.name === 'occasion')).toMatchObject({ required: true });
      expect(occasion.arguments?.find((a) => a.name === 'liked_notes')).toMatchObject({ required: false });
    });

    it('scent_for_occasion gives a search the tools accept', async () => {
      const { messages } = await client.getPrompt({
        name: 'scent_for_occasion',
        arguments: { occasion: 'evening', season: 'winter', liked_notes: 'vetiver, cedar', disliked_notes: 'musk' },
      });
      const text = (messages[0]?.content as { text: string }).text;
      expect(text).toContain('I dislike these notes, so avoid them: musk');
      const search = JSON.parse(text.split('\n').find((line) => line.startsWith('{'))!) as Record<string, unknown>;
      expect(search).toMatchObject({ occasion: ['evening'], season: ['winter'], note: ['vetiver', 'cedar'], exclude_note: ['musk'] });
      expect((await call('search_fragrances', search)).isError).toBeFalsy();
    });

    it('find_alternatives and compare_named_fragrances resolve names to ids', async () => {
      const alternatives = await client.getPrompt({
        name: 'find_alternatives',
        arguments: { fragrance: 'Zygomatic Vetiver Nocturne (Maison Testière)' },
      });
      expect((alternatives.messages[0]?.content as { text: string }).text).toContain(`{"id": "${NOCTURNE.id}", "limit": 20}`);
      const compared = await client.getPrompt({
        name: 'compare_named_fragrances',
        arguments: { fragrances: 'zygomatic nocturne, zygomatic matin' },
      });
      const text = (compared.messages[0]?.content as { text: string }).text;
      expect(text).toContain(`{"ids": ${JSON.stringify([NOCTURNE.id, MATIN.id])}}`);
    });
  });
});

describe('resource list without the catalogue', () => {
  it('still lists the fixed resources and the views when the catalogue is down', async () => {
    const down = catalogueClient('http://catalogue.test/v1', () => Promise.reject(new CatalogueUnavailableError('down')));
    const page = await listResourcesPage(
      { catalogue: down, logger: createLogger('t', 'silent'), caller: { sub: 'u', clientId: 'c', scopes: [] }, requestId: 'r' },
      undefined,
    );
    expect(page.resources.map((r) => r.uri)).toEqual([
      'fragrance://vocabulary/provenance',
      'fragrance://vocabulary/search',
      'fragrance://facets',
      'ui://fragrance-catalogue/fragrance.html',
      'ui://fragrance-catalogue/comparison.html',
      'ui://fragrance-catalogue/results.html',
    ]);
    expect(page.nextCursor).toBeUndefined();
  });
});

describe('older revisions and negotiation', () => {
  // The SDK client offers the first entry of supportedProtocolVersions in its initialize request.
  it.for(['2025-06-18', '2025-03-26'])('negotiates %s and serves it', async (older, { mcp }) => {
    const client = await connect(mcp, { supportedProtocolVersions: [older] });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe(older);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('search_fragrances');
      const result = await client.callTool({ name: 'search_fragrances', arguments: { query: 'zygomatic', limit: 2 } });
      expect(result.isError).toBeFalsy();
      expect((result.content[0] as { text: string }).text).toContain('Zygomatic');
    } finally {
      await client.close();
    }
  });

  it("settles on 2026-07-28 when the client probes ('auto')", async ({ mcp }) => {
    const client = await connect(mcp, { versionNegotiation: { mode: 'auto' } });
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    } finally {
      await client.close();
    }
  });
});
