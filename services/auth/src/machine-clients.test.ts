import { randomUUID } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { describe, expect } from 'vitest';
import { MachineClientStore } from '@fragrance/identity';
import { authTest, type AuthApp } from './testing/app.ts';
import { register, token } from './testing/flow.ts';

// Machine clients (the MCP OAuth client-credentials extension): registered by an operator
// through MachineClientStore (what `ops clients create --machine` runs), authenticated with
// private_key_jwt (RFC 7523) or a client secret stored hashed; tokens for the MCP resource only.
const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * `machines`: the operator's store of machine clients on the file's Redis; `keyed`: a machine
 * client registered with a public key, and its private key.
 */
const test = authTest
  .extend(
    'machines',
    { scope: 'file' },
    ({ auth, redis }) => new MachineClientStore(redis.redis, { prefix: redis.prefix, revocations: auth.revocations }),
  )
  .extend('keyed', { scope: 'file' }, async ({ machines }) => {
    const pair = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(pair.publicKey)), alg: 'ES256', use: 'sig', kid: 'k1' };
    const { client } = await machines.create({ name: 'Back-office agent', jwks: { keys: [jwk] } });
    return { id: client.id, privateKey: pair.privateKey };
  });

/** An RFC 7523 client assertion: iss = sub = the client, aud = the token endpoint. */
const assertion = (auth: AuthApp, signer: { id: string; privateKey: CryptoKey }, jti = randomUUID()) =>
  new SignJWT({ jti })
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer(signer.id)
    .setSubject(signer.id)
    .setAudience(`${auth.issuer}/oauth/token`)
    .setIssuedAt()
    .setExpirationTime('2m')
    .sign(signer.privateKey);

const withAssertion = (auth: AuthApp, signed: string, extra: Record<string, string> = {}) =>
  token(auth.issuer, {
    grant_type: 'client_credentials',
    client_assertion_type: ASSERTION_TYPE,
    client_assertion: signed,
    scope: 'catalogue:read',
    resource: auth.resource,
    ...extra,
  });

describe('client credentials for machine clients', () => {
  test('the metadata names the grant and the authentication methods (MCP client-credentials extension)', async ({ auth }) => {
    const metadata = (await (await fetch(`${auth.issuer}/.well-known/oauth-authorization-server`)).json()) as Record<string, string[]>;
    expect(metadata.grant_types_supported).toContain('client_credentials');
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(['none', 'private_key_jwt', 'client_secret_basic']),
    );
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toContain('ES256');
  });

  test('a registered machine client with a valid assertion gets an access token for the MCP resource, an hour at most', async ({
    auth,
    keyed,
  }) => {
    const answer = await withAssertion(auth, await assertion(auth, keyed));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.refresh_token).toBeUndefined();
    const claims = decodeJwt(answer.body.access_token as string);
    expect(claims).toMatchObject({ aud: auth.resource, sub: keyed.id, client_id: keyed.id, scope: 'catalogue:read' });
    expect(claims.gid).toBeUndefined();
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(3600);
    // Without `resource`, the MCP server is the audience too; any other resource is refused.
    const defaulted = await token(auth.issuer, {
      grant_type: 'client_credentials',
      client_assertion_type: ASSERTION_TYPE,
      client_assertion: await assertion(auth, keyed),
      scope: 'catalogue:read',
    });
    expect(decodeJwt(defaulted.body.access_token as string).aud).toBe(auth.resource);
    const foreign = await withAssertion(auth, await assertion(auth, keyed), { resource: 'https://elsewhere.example/mcp' });
    expect(foreign.body.error).toBe('invalid_target');
  });

  test('refuses an assertion signed with another key, or naming a client nobody registered', async ({ auth, keyed }) => {
    const stranger = (await generateKeyPair('ES256')).privateKey;
    expect(await withAssertion(auth, await assertion(auth, { ...keyed, privateKey: stranger }))).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
    expect(await withAssertion(auth, await assertion(auth, { ...keyed, id: 'mc_AAAAAAAAAAAAAAAAAAAAAA' }))).toMatchObject({
      status: 401,
      body: { error: 'invalid_client' },
    });
  });

  test('refuses a replayed assertion (same jti), also when the copies arrive at once', async ({ auth, keyed }) => {
    const once = await assertion(auth, keyed);
    expect((await withAssertion(auth, once)).status).toBe(200);
    expect(await withAssertion(auth, once)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    const raced = await assertion(auth, keyed);
    const answers = await Promise.all(Array.from({ length: 5 }, () => withAssertion(auth, raced)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(4);
  });

  test('a client secret works (basic or in the body), is stored only as its hash, and a wrong one is refused', async ({
    auth,
    redis,
    machines,
  }) => {
    const { client, secret } = await machines.create({ name: 'Secret agent', quotaPerDay: 10 });
    expect(secret).toBeTypeOf('string');
    const stored = JSON.parse((await redis.redis.get(`${redis.prefix}oidc:Client:${client.id}`))!) as Record<string, unknown>;
    expect(stored.client_secret).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(secret!);

    const basic = await fetch(`${auth.issuer}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.id}:${secret!}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'catalogue:read' }).toString(),
    });
    expect(basic.status).toBe(200);
    const post = await token(auth.issuer, {
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: secret!,
      scope: 'catalogue:read',
    });
    expect(post.status).toBe(200);
    const wrong = await token(auth.issuer, { grant_type: 'client_credentials', client_id: client.id, client_secret: `${secret!}x` });
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });

  test('dynamic registration cannot make a machine client', async ({ auth }) => {
    const marked = await register(auth.issuer, { client_name: 'Me', redirect_uris: ['http://127.0.0.1:1/cb'], fcs_machine: true });
    expect(marked).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
    const granted = await register(auth.issuer, {
      client_name: 'Me',
      grant_types: ['client_credentials'],
      redirect_uris: ['http://127.0.0.1:1/cb'],
    });
    expect(granted.status).toBe(400);
    const secretClient = await register(auth.issuer, {
      client_name: 'Me',
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: ['http://127.0.0.1:1/cb'],
    });
    expect(secretClient).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
  });

  test('revocation is effective at once: no new token, and the tokens it holds are recorded revoked', async ({ auth, machines }) => {
    const { client, secret } = await machines.create({ name: 'Soon revoked' });
    const before = await token(auth.issuer, {
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: secret!,
      scope: 'catalogue:read',
    });
    expect(before.status).toBe(200);
    const claims = decodeJwt(before.body.access_token as string);
    expect(await auth.revocations.isRevoked({ sub: claims.sub!, iat: claims.iat! })).toBe(false);

    await machines.revoke(client.id);
    const after = await token(auth.issuer, {
      grant_type: 'client_credentials',
      client_id: client.id,
      client_secret: secret!,
      scope: 'catalogue:read',
    });
    expect(after).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    // The MCP server checks this record on every request (services/mcp/src/auth).
    expect(await auth.revocations.isRevoked({ sub: claims.sub!, iat: claims.iat! })).toBe(true);
  });
});
