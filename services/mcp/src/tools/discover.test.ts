import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@fragrance/http';
import { catalogueClient } from '../catalogue/catalogue.ts';
import { createCatalogueMcpServer } from './server.ts';

const hit = {
  id: '00000000-0000-4000-8000-000000000001',
  name: 'Night Ember',
  brand: 'Quillon Atelier',
  country: 'FR',
  concentration: 'Eau de Parfum',
  year_released: 2019,
  rating: { average: 4.1, count: 320 },
  main_accords: ['smoky', 'leather'],
  available_in_au: false,
  highlight: { accords: [{ text: 'smoky', matches: [{ start: 0, end: 5 }] }] },
};

async function discover(args: Record<string, unknown>, sent: Record<string, string>[]): Promise<CallToolResult> {
  // Records what the tool asks of the catalogue; the catalogue's own answer is covered by packages/search's tests.
  const catalogue = catalogueClient('http://catalogue.test/v1', (request) => {
    sent.push(Object.fromEntries(new URL(request.url).searchParams));
    return Promise.resolve(
      Response.json({
        data: [hit, { ...hit, id: '00000000-0000-4000-8000-000000000002', highlight: {} }],
        total: 2,
        limit: 10,
        offset: 0,
        next_cursor: null,
        search_mode: 'hybrid',
      }),
    );
  });
  const server = createCatalogueMcpServer({
    catalogue,
    logger: createLogger('t', 'silent'),
    caller: { sub: 'u', clientId: 'c', scopes: ['catalogue:read'] },
    requestId: 'r',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(clientSide);
  try {
    return await client.callTool({ name: 'discover_fragrances', arguments: args });
  } finally {
    await client.close();
  }
}

describe('discover_fragrances', () => {
  it('sends the description as a hybrid query with highlights and the filters, and says why each fragrance matched', async () => {
    const sent: Record<string, string>[] = [];
    const result = await discover(
      { description: 'a smoky fragrance for winter evenings', season: ['winter'], exclude_note: ['oud'] },
      sent,
    );
    expect(result.isError).toBeFalsy();
    expect(sent).toEqual([
      {
        query: 'a smoky fragrance for winter evenings',
        search_mode: 'hybrid',
        highlight: 'true',
        limit: '10',
        season: 'winter',
        exclude_note: 'oud',
      },
    ]);
    const structured = result.structuredContent as { search_mode: string; data: { id: string; why: string[]; highlight?: unknown }[] };
    expect(structured.search_mode).toBe('hybrid');
    expect(structured.data[0]?.why).toEqual(['has the accords smoky', 'main accords: smoky, leather']);
    expect(structured.data[1]?.why).toEqual(['close in meaning to the description (main accords: smoky, leather)']);
    expect(structured.data[0]).not.toHaveProperty('highlight');
    expect((result.content[0] as { text: string }).text).toContain('why: has the accords smoky');
  });

  it('refuses bad arguments before calling the catalogue', async () => {
    const sent: Record<string, string>[] = [];
    const result = await discover({ description: 'fresh', concentration: 'perfume oil' }, sent);
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/concentration: must be one of/);
    expect(sent).toHaveLength(0);
  });

  it('is listed, and search_fragrances takes search_mode', async () => {
    const server = createCatalogueMcpServer({
      catalogue: catalogueClient('http://catalogue.test/v1', () => Promise.reject(new Error('unused'))),
      logger: createLogger('t', 'silent'),
      caller: { sub: 'u', clientId: 'c', scopes: ['catalogue:read'] },
      requestId: 'r',
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    await client.close();
    expect(tools.map((t) => t.name)).toContain('discover_fragrances');
    const search = tools.find((t) => t.name === 'search_fragrances');
    expect((search?.inputSchema.properties as Record<string, { enum?: string[] }>).search_mode?.enum).toEqual([
      'lexical',
      'semantic',
      'hybrid',
    ]);
  });
});
