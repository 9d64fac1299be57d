import type { Express } from 'express';
import type { GatewayDeps } from '../app.ts';
import type { GatewayConfig } from '../config.ts';
import { upstreamCheck, type HealthCheck } from '../health.ts';
import { proxyTo } from '../proxy.ts';

/** The public routes of the services behind the edge other than the catalogue; each optional. */
function optionalUpstreams(config: GatewayConfig, agents: GatewayDeps['agents']) {
  return [
    // The authorization server: endpoints, metadata, sign-in and consent pages (all under /oauth),
    // and the account page where people see and disconnect the apps they connected.
    {
      name: 'auth',
      url: config.AUTH_SERVICE_URL,
      agent: agents.auth,
      paths: ['/oauth{/*rest}', '/account{/*rest}', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'],
    },
    // The MCP server, its RFC 9728 metadata (also at the path-suffixed location), and its discovery
    // documents: the Server Card (SEP-2127) and the AI Catalog, each at the current draft's path and the earlier one's.
    {
      name: 'mcp',
      url: config.MCP_SERVICE_URL,
      agent: agents.mcp,
      paths: [
        '/mcp',
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-protected-resource/mcp',
        '/mcp/server-card',
        '/.well-known/mcp/server-card.json',
        '/.well-known/ai-catalog.json',
        '/.well-known/mcp/catalog.json',
      ],
    },
  ] as const;
}

/** Forwards the configured upstreams' public routes, and adds a health check for each to `checks`. */
export function mountOptionalUpstreams(
  app: Express,
  { config, agents, checks }: { config: GatewayConfig; agents: GatewayDeps['agents']; checks: Record<string, HealthCheck> },
): void {
  for (const upstream of optionalUpstreams(config, agents)) {
    if (!upstream.url || !upstream.agent) continue;
    checks[upstream.name] = upstreamCheck(upstream.url, upstream.agent, config.HEALTH_TIMEOUT_MS);
    // Exact routes (all of /oauth belongs to the authorization server): nothing else of theirs is
    // public. Sign-in pages and MCP event streams may legitimately idle: no body timeout there.
    // One route per path, so each has its own route template in metrics.
    const toUpstream = proxyTo({
      name: upstream.name,
      upstream: upstream.url,
      agent: upstream.agent,
      timeoutMs: config.UPSTREAM_TIMEOUT_MS,
      bodyIdleTimeoutMs: 0,
      maxBodyBytes: config.MAX_REQUEST_BODY_BYTES,
      publicOrigin: config.MCP_URL,
    });
    for (const path of upstream.paths) app.all(path, toUpstream);
  }
}
