export { buildApp, type McpDeps } from './app.ts';
export { createDeps, type RunningDeps } from './deps.ts';
export { loadConfig, McpConfig, REQUIRED_SCOPE, resourceMetadataUrlOf, resourceOf } from './config.ts';
export { createTokenVerifier, type Caller, type TokenVerifier, type TokenVerifierOptions } from './auth/verify-token.ts';
export { createRateLimiter, type McpRateLimiter } from './rate-limit.ts';
export { createCatalogue, type Catalogue } from './catalogue/catalogue.ts';
export { createCatalogueMcpServer, FRAGRANCE_URI_TEMPLATE, type ToolContext } from './tools/server.ts';
