// Writes server.json, the MCP Registry's description of this server, for a deployment's public
// address (what `mcp-publisher publish` reads). The committed services/mcp/server.json is the one
// for the documented example address (formatted by prettier); src/discovery/documents.test.ts
// checks it says what this script would write.
//
//   node scripts/server-json.ts [--mcp-url https://mcp.example.com] [--issuer <url>] [--out server.json]
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serverJson } from '../src/discovery/documents.ts';

/** The address the committed server.json is written for (docs/mcp.md#discovery). */
export const EXAMPLE_MCP_URL = 'https://mcp.example.com';

/** The file's text: the document, two-space indented, one trailing newline. */
const serverJsonText = (mcpUrl: string, issuer: string): string =>
  `${JSON.stringify(serverJson({ MCP_URL: mcpUrl, OAUTH_ISSUER: issuer }), null, 2)}\n`;

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--')),
    options: {
      'mcp-url': { type: 'string', default: EXAMPLE_MCP_URL },
      issuer: { type: 'string' },
      out: { type: 'string', default: 'server.json' },
    },
  });
  const mcpUrl = new URL(values['mcp-url']).origin;
  const out = resolve(values.out);
  writeFileSync(out, serverJsonText(mcpUrl, values.issuer ? new URL(values.issuer).origin : mcpUrl));
  process.stdout.write(`wrote ${out} for ${mcpUrl}/mcp\n`);
}
