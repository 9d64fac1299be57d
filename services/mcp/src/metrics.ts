import { Counter } from '@fragrance/metrics';

/** MCP's own metrics (docs/observability.md); never labelled by user, client or token. */
export const toolCalls = new Counter({
  name: 'mcp_tool_calls_total',
  help: 'MCP tool calls by tool and outcome (ok, rejected, unavailable, failed).',
  labelNames: ['tool', 'outcome'] as const,
});

export const tokenRejections = new Counter({
  name: 'mcp_token_rejections_total',
  help: 'Requests refused at the bearer check, by reason.',
  labelNames: ['reason'] as const,
});

export type TokenRejectionReason = 'missing' | 'malformed' | 'invalid' | 'revoked' | 'insufficient_scope' | 'unavailable';
