// The discovery documents against the published JSON schemas (vendored in ../../schemas, with ajv,
// formats checked): the Server Card against SEP-2127's, server.json against the MCP Registry's.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_MCP_URL } from '../../scripts/server-json.ts';
import { McpConfig } from '../config.ts';
import { aiCatalog, serverCard, serverJson, serverNameOf } from './documents.ts';

const read = (path: string): unknown => JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));

const cardAjv = new Ajv2020({ allErrors: true, strict: false });
addFormats.default(cardAjv);
cardAjv.addSchema(read('../../schemas/server-card.schema.json') as object, 'server-card.schema.json');
const validCard = cardAjv.getSchema('server-card.schema.json#/$defs/ServerCard')!;

const registryAjv = new Ajv({ allErrors: true, strict: false });
addFormats.default(registryAjv);
const validServerJson = registryAjv.compile(read('../../schemas/server.schema.json') as object);

const deployments = [
  McpConfig.parse({ MCP_URL: 'https://mcp.example.com', JWKS_URL: 'http://127.0.0.1:1/jwks' }),
  McpConfig.parse({
    MCP_URL: 'https://fragrances.example.org',
    OAUTH_ISSUER: 'https://auth.example.org',
    JWKS_URL: 'http://127.0.0.1:1/jwks',
  }),
  // Development: the edge on loopback, over HTTP.
  McpConfig.parse({ JWKS_URL: 'http://127.0.0.1:1/jwks' }),
];

describe('discovery documents', () => {
  it.each(deployments.map((c) => [c.MCP_URL, c] as const))('the Server Card for %s validates against the SEP-2127 schema', (_, config) => {
    const card = serverCard(config);
    expect(validCard(card), JSON.stringify(validCard.errors)).toBe(true);
    expect(card.remotes).toEqual([expect.objectContaining({ type: 'streamable-http', url: `${config.MCP_URL}/mcp` })]);
  });

  it.each(deployments.map((c) => [c.MCP_URL, c] as const))('server.json for %s validates against the registry schema', (_, config) => {
    const document = serverJson(config);
    expect(validServerJson(document), JSON.stringify(validServerJson.errors)).toBe(true);
    expect(document.remotes[0]!.url).toBe(`${config.MCP_URL}/mcp`);
    expect(document._meta['io.modelcontextprotocol.registry/publisher-provided'].oauth).toEqual({
      resource: `${config.MCP_URL}/mcp`,
      protectedResourceMetadata: `${config.MCP_URL}/.well-known/oauth-protected-resource/mcp`,
      authorizationServer: config.OAUTH_ISSUER,
      scopes: ['catalogue:read'],
      dynamicClientRegistration: true,
    });
    // The same identity as the card: a directory can match the two.
    expect(document.name).toBe(serverCard(config).name);
  });

  it('the validators refuse what the schemas forbid (so a pass means something)', () => {
    const card = serverCard(deployments[0]!);
    expect(validCard({ ...card, name: 'no slash' })).toBe(false);
    expect(validCard({ ...card, $schema: 'https://static.modelcontextprotocol.io/schemas/2025-01-01/server-card.schema.json' })).toBe(
      false,
    );
    expect(validCard({ ...card, description: 'x'.repeat(101) })).toBe(false);
    const document = serverJson(deployments[0]!);
    expect(validServerJson({ ...document, remotes: [{ type: 'streamable-http', url: 'mcp.example.com/mcp' }] })).toBe(false);
    expect(validServerJson({ ...document, version: undefined })).toBe(false);
  });

  it('the committed server.json is what scripts/server-json.ts writes for the example address, and validates', () => {
    const committed = read('../../server.json');
    expect(committed).toEqual(JSON.parse(JSON.stringify(serverJson({ MCP_URL: EXAMPLE_MCP_URL, OAUTH_ISSUER: EXAMPLE_MCP_URL }))));
    expect(validServerJson(committed), JSON.stringify(validServerJson.errors)).toBe(true);
  });

  it('names the server in reverse DNS of its public host', () => {
    expect(serverNameOf({ MCP_URL: 'https://mcp.example.com' })).toBe('com.example.mcp/fragrance-catalogue');
    expect(serverNameOf({ MCP_URL: 'http://127.0.0.1:8080' })).toBe('127.0.0.1/fragrance-catalogue');
    expect(serverNameOf({ MCP_URL: 'http://localhost:8080' })).toBe('localhost/fragrance-catalogue');
  });

  it('the AI Catalog points at the card by its draft location', () => {
    expect(aiCatalog({ MCP_URL: 'https://mcp.example.com' })).toEqual({
      specVersion: '1.0',
      entries: [
        {
          identifier: 'urn:air:mcp.example.com:mcp:fragrance-catalogue',
          type: 'application/mcp-server-card+json',
          url: 'https://mcp.example.com/mcp/server-card',
        },
      ],
    });
  });
});
