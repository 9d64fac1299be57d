// Signing keys, a local JWKS server and a token minter, so the resource-server tests (and the
// bench and conformance scripts) exercise real signatures, real key fetching and the real
// revocation store; and the requests every MCP test sends.
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { listen } from '@fragrance/testkit';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** Serves `{ keys }` at /oauth/jwks like the auth service does. */
export async function jwksServer(keys: SigningKey[]): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url !== '/oauth/jwks') {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/jwk-set+json');
    res.end(JSON.stringify({ keys: keys.map((k) => k.publicJwk) }));
  });
  return { url: `${await listen(server)}/oauth/jwks`, server };
}

export interface TokenOptions {
  issuer: string;
  audience: string | string[];
  sub?: string;
  clientId?: string;
  scope?: string;
  gid?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  typ?: string;
  alg?: string;
}

/** An access token shaped like the auth service's (RFC 9068 at+jwt). */
export async function mintToken(key: SigningKey, options: TokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const expiresIn = options.expiresIn ?? 300;
  return new SignJWT({
    client_id: options.clientId ?? 'client-1',
    scope: options.scope ?? 'catalogue:read',
    ...(options.gid === '' ? {} : { gid: options.gid ?? 'grant-1' }),
  })
    .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: key.kid, typ: options.typ ?? 'at+jwt' })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(options.sub ?? 'user-1')
    .setIssuedAt(expiresIn < 0 ? now + expiresIn - 60 : now)
    .setExpirationTime(now + expiresIn)
    .setJti(crypto.randomUUID())
    .sign(key.privateKey);
}

/** An unsecured JWT (`alg: none`) with otherwise valid claims. */
export function unsecuredToken(options: TokenOptions): string {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = b64({ alg: 'none', typ: 'at+jwt' });
  const payload = b64({
    iss: options.issuer,
    aud: options.audience,
    sub: options.sub ?? 'user-1',
    client_id: options.clientId ?? 'client-1',
    scope: options.scope ?? 'catalogue:read',
    gid: options.gid ?? 'grant-1',
    iat: now,
    exp: now + 300,
  });
  return `${header}.${payload}.`;
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
