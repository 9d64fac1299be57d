// Checks a running authorization server end to end, the way the seed's §4.3 describes, and
// optionally runs the MCP conformance suite against it:
//   printf '%s\n' "$PASSWORD" | bash scripts/toolchain.sh pnpm --filter @fragrance/auth run check -- \
//     --issuer http://127.0.0.1:8080 --email demo@fragrance.example [--conformance]
// It registers a throwaway client, signs in and consents through the pages over HTTP, exchanges
// the code, refreshes, revokes, and prints one line per step. Exit code 0 only if all passed.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { exchange, obtainCode, register, registerClient, token } from '../testing/flow.ts';
import { FormUser, freePort } from '@fragrance/testkit';

const { values } = parseArgs({
  // pnpm run passes its `--` separator through.
  args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--')),
  options: {
    issuer: { type: 'string', default: 'http://127.0.0.1:8080' },
    email: { type: 'string' },
    conformance: { type: 'boolean', default: false },
  },
});
if (!values.email) {
  process.stderr.write('usage: check -- --issuer <url> --email <email> [--conformance]  (password on stdin)\n');
  process.exit(2);
}
const issuer = values.issuer.replace(/\/+$/, '');
const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const credentials = {
  email: values.email,
  password: Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '',
};

let failed = 0;
const step = (ok: boolean, label: string, detail = '') => {
  if (!ok) failed++;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `  (${detail})` : ''}\n`);
};

const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
step(metadata.issuer === issuer, 'metadata issuer', String(metadata.issuer));
for (const [field, expected] of Object.entries({
  authorization_endpoint: `${issuer}/oauth/authorize`,
  token_endpoint: `${issuer}/oauth/token`,
  registration_endpoint: `${issuer}/oauth/register`,
}))
  step(metadata[field] === expected, `metadata ${field}`, String(metadata[field]));
step(JSON.stringify(metadata.code_challenge_methods_supported) === '["S256"]', 'metadata code_challenge_methods_supported ["S256"]');

const redirect = `http://127.0.0.1:${await freePort()}/callback`;
const registration = await register(issuer, { client_name: 'Stack check', redirect_uris: [redirect] });
const clientId = typeof registration.body.client_id === 'string' ? registration.body.client_id : '';
step(
  registration.status === 201 &&
    clientId !== '' &&
    JSON.stringify(registration.body.redirect_uris) === JSON.stringify([redirect]) &&
    registration.body.token_endpoint_auth_method === 'none' &&
    !('client_secret' in registration.body),
  'register a public client (201, client_id, the redirect URI, no secret)',
  `status ${registration.status}${clientId ? `, ${clientId}` : `, ${JSON.stringify(registration.body).slice(0, 200)}`}`,
);
// Every later step needs the client; stdout to a pipe or file is synchronous, so nothing is lost.
if (!clientId) process.exit(1);
const code = await obtainCode(issuer, clientId, redirect, credentials);
step(code.callback.searchParams.get('iss') === issuer, 'authorize → code, state and iss on the redirect');
const tokens = await exchange(issuer, clientId, redirect, code);
const body = tokens.body;
step(
  tokens.status === 200 &&
    typeof body.access_token === 'string' &&
    typeof body.refresh_token === 'string' &&
    body.token_type === 'Bearer' &&
    body.expires_in === 86_400,
  'token response (access_token, refresh_token, token_type Bearer, expires_in 86400)',
  `status ${tokens.status}`,
);
const refreshed = await token(issuer, {
  grant_type: 'refresh_token',
  refresh_token: String(body.refresh_token),
  client_id: clientId,
});
step(refreshed.status === 200 && refreshed.body.refresh_token !== body.refresh_token, 'refresh with rotation');
const revoked = await fetch(`${issuer}/oauth/revoke`, {
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ token: String(refreshed.body.refresh_token), client_id: clientId }),
});
const after = await token(issuer, {
  grant_type: 'refresh_token',
  refresh_token: String(refreshed.body.refresh_token),
  client_id: clientId,
});
step(revoked.status === 200 && after.body.error === 'invalid_grant', 'revoke, then refresh fails with invalid_grant');

if (values.conformance) {
  const port = await freePort();
  const id = await registerClient(issuer, [`http://127.0.0.1:${port}/callback`], 'MCP conformance');
  const bin = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [bin, 'authorization', '--url', issuer, '--client-id', id, '--port', String(port), '--resource', `${issuer}/mcp`],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  let driving: Promise<void> | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    process.stdout.write(chunk);
    const url = /^(http\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1];
    if (url && !driving) {
      driving = new FormUser(issuer).authorize(url, credentials).then(async (final) => {
        if (final.location) await fetch(final.location);
      });
    }
  });
  const exit = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  await driving;
  step(exit === 0 && /Total: \d+ passed, 0 failed/.test(output), 'MCP conformance authorization scenarios');
}

process.exitCode = failed === 0 ? 0 : 1;
