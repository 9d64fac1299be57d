import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { createLogger } from '@fragrance/http';
import type { FragranceClient } from '@fragrance/client';
import { catalogueClient, CatalogueRejectedError } from '../catalogue/catalogue.ts';
import { createCatalogueMcpServer } from './server.ts';

/** A catalogue that answers every request with `answer` (the real one is covered end to end). */
function catalogueThat(answer: () => Promise<unknown>): FragranceClient {
  return catalogueClient('http://catalogue.test/v1', async () => Response.json(await answer()));
}

async function callWith(catalogue: FragranceClient, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const server = createCatalogueMcpServer({
    catalogue,
    logger: createLogger('t', 'silent'),
    caller: { sub: 'u', clientId: 'c', scopes: ['catalogue:read'] },
    requestId: 'req-42',
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 't', version: '1' });
  await client.connect(clientSide);
  try {
    return await client.callTool({ name, arguments: args });
  } finally {
    await client.close();
  }
}

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('tool error mapping', () => {
  it('names each parameter the catalogue rejected', async () => {
    const result = await callWith(
      catalogueThat(() =>
        Promise.reject(new CatalogueRejectedError(400, 'bad', 'invalid_parameter', [{ name: 'brand', reason: 'is unknown' }])),
      ),
      'search_fragrances',
      { brand: 'x' },
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Invalid arguments: brand: is unknown');
  });

  it('says not found for a 404', async () => {
    const result = await callWith(
      catalogueThat(() => Promise.reject(new CatalogueRejectedError(404, 'No fragrance with that id.'))),
      'get_fragrance',
      {
        id: '00000000-0000-4000-8000-000000000000',
      },
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('Not found: No fragrance with that id.');
  });

  it('hides the internals of an unexpected failure but gives the request id', async () => {
    const result = await callWith(
      catalogueThat(() => Promise.reject(new TypeError('secret internal detail'))),
      'search_fragrances',
      {},
    );
    expect(result.isError).toBe(true);
    expect(text(result)).not.toContain('secret');
    expect(text(result)).toContain('req-42');
  });

  it('treats a catalogue answer of the wrong shape as unavailable, not as data', async () => {
    const result = await callWith(
      catalogueThat(() => Promise.resolve({ data: 'nope' })),
      'search_fragrances',
      {},
    );
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/temporarily unavailable/);
  });
});
