// What clients and directories learn about this server before connecting: the Server Card
// (SEP-2127), the AI Catalog that points at it, and the MCP Registry's server.json. All three are
// built from the configuration (the public MCP_URL), so every URL in them is this deployment's.
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { REQUIRED_SCOPE, resourceMetadataUrlOf, resourceOf, type McpConfig } from '../config.ts';
import { SERVER_NAME, SERVER_VERSION } from '../tools/server.ts';

/** The versioned schema URLs the documents name (the schemas are vendored in ../../schemas). */
export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
export const AI_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';

/** 2026-07-28 first (createMcpHandler's leg), then every 2025-era revision the stateless transport accepts. */
export const PROTOCOL_REVISIONS: readonly string[] = ['2026-07-28', ...SUPPORTED_PROTOCOL_VERSIONS];

const TITLE = 'Fragrance Catalogue';
const DESCRIPTION = 'Search, compare and discover ~75,000 fragrances: notes, accords, ratings, AU offers.';

type Config = Pick<McpConfig, 'MCP_URL' | 'OAUTH_ISSUER'>;

/**
 * The server's registry name: the public host in reverse-DNS order (`mcp.example.com` →
 * `com.example.mcp/fragrance-catalogue`), the namespace its publisher proves with DNS. An IP
 * address or a single-label host (development) is used as it is.
 */
export function serverNameOf(config: Pick<McpConfig, 'MCP_URL'>): string {
  const host = new URL(config.MCP_URL).hostname;
  const namespace = /^[\d.]+$/.test(host) || !host.includes('.') ? host : host.split('.').reverse().join('.');
  return `${namespace}/${SERVER_NAME}`;
}

/** The Server Card URL the draft reserves: `<streamable-http-url>/server-card`. */
export const serverCardUrlOf = (config: Pick<McpConfig, 'MCP_URL'>): string => `${resourceOf(config)}/server-card`;

/** SEP-2127 Server Card: identity, the one remote and the protocol revisions it speaks (no primitives, by design). */
export function serverCard(config: Config) {
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: serverNameOf(config),
    version: SERVER_VERSION,
    title: TITLE,
    description: DESCRIPTION,
    remotes: [{ type: 'streamable-http' as const, url: resourceOf(config), supportedProtocolVersions: [...PROTOCOL_REVISIONS] }],
  };
}

/** The AI Catalog (the draft's domain-level discovery document) listing this server's card. */
export function aiCatalog(config: Pick<McpConfig, 'MCP_URL'>) {
  return {
    specVersion: '1.0',
    entries: [
      {
        identifier: `urn:air:${new URL(config.MCP_URL).hostname}:mcp:${SERVER_NAME}`,
        type: SERVER_CARD_MEDIA_TYPE,
        url: serverCardUrlOf(config),
      },
    ],
  };
}

/**
 * The MCP Registry's server.json: the remote's URL, and its auth. Clients sign in with OAuth 2.1
 * on their own (RFC 9728 metadata named by the 401), so the Authorization header is optional:
 * it is for a token the client already holds. The OAuth details ride in the registry's
 * publisher-provided metadata.
 */
export function serverJson(config: Config) {
  return {
    $schema: SERVER_JSON_SCHEMA,
    name: serverNameOf(config),
    title: TITLE,
    description: DESCRIPTION,
    version: SERVER_VERSION,
    remotes: [
      {
        type: 'streamable-http' as const,
        url: resourceOf(config),
        headers: [
          {
            name: 'Authorization',
            description: `OAuth 2.1 bearer token for ${resourceOf(config)} (scope ${REQUIRED_SCOPE}). MCP clients obtain it themselves through the authorization server the 401 names; set it only for a token you already hold.`,
            isRequired: false,
            isSecret: true,
            value: 'Bearer {access_token}',
            variables: {
              access_token: { description: 'An access token issued by the authorization server.', isRequired: false, isSecret: true },
            },
          },
        ],
      },
    ],
    _meta: {
      'io.modelcontextprotocol.registry/publisher-provided': {
        oauth: {
          resource: resourceOf(config),
          protectedResourceMetadata: resourceMetadataUrlOf(config),
          authorizationServer: config.OAUTH_ISSUER,
          scopes: [REQUIRED_SCOPE],
          dynamicClientRegistration: true,
        },
        serverCard: serverCardUrlOf(config),
      },
    },
  };
}
