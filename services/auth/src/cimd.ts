import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { rootCertificates } from 'node:tls';

/**
 * Fetching of Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document):
 * https only, no redirects, a bounded wait (oidc-provider passes a 2.5 s abort signal) and
 * size (its fetchResponseBodyLimits), and never to a special-use address (loopback, private,
 * link-local, ...) so a client_id URL cannot make us probe the internal network. Tests may
 * allow named hosts and trust their own CA.
 */
export interface CimdFetchOptions {
  /** Hostnames exempt from the special-use address check (tests: 'localhost'). */
  allowHosts?: readonly string[];
  /** Extra trusted CA certificates (PEM), e.g. a test's self-signed certificate. */
  ca?: string | readonly string[];
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['64:ff9b::', 96],
  ['2001:db8::', 32],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return blocked.check(mapped[1], 'ipv4');
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A DNS lookup that refuses to connect when any resolved address is special-use. */
function guardedLookup(allow: ReadonlySet<string>): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      if (!allow.has(hostname) && addresses.some((a) => isSpecialUseAddress(a.address))) {
        return callback(
          Object.assign(new Error(`${hostname} resolves to a special-use address`), {
            code: 'EBLOCKED',
          }),
          '',
          0,
        );
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      return first ? callback(null, first.address, first.family) : callback(new Error(`${hostname} has no address`), '', 0);
    });
  };
}

/** A `fetch` for oidc-provider's `fetch` option built on node:https (so a CA can be trusted). */
export function createCimdFetch(options: CimdFetchOptions = {}): (url: string | URL, init: RequestInit) => Promise<Response> {
  const allow = new Set(options.allowHosts ?? []);
  const lookup = guardedLookup(allow);
  const ca = options.ca === undefined ? undefined : [...(typeof options.ca === 'string' ? [options.ca] : options.ca)];
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== 'https:') return reject(new Error('only https URLs are fetched'));
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0 && !allow.has(url.hostname) && isSpecialUseAddress(host)) {
        return reject(new Error(`${url.hostname} is a special-use address`));
      }
      const headers: Record<string, string> = {};
      new Headers(init.headers).forEach((value, name) => {
        if (value) headers[name] = value;
      });
      const req = request(url, {
        method: init.method ?? 'GET',
        headers,
        lookup,
        // A fresh connection each time: a pooled socket would skip the address check.
        agent: false,
        // Extra CAs add to the public roots rather than replace them.
        ...(ca ? { ca: [...rootCertificates, ...ca] } : {}),
        signal: init.signal ?? AbortSignal.timeout(2_500),
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const status = res.statusCode ?? 502;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) value.forEach((v) => responseHeaders.append(name, v));
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        const nullBody = status === 204 || status === 304 || status < 200 || init.method === 'HEAD';
        if (nullBody) res.resume();
        resolve(
          new Response(nullBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), {
            status: status < 200 ? 502 : status,
            headers: responseHeaders,
          }),
        );
      });
      req.end();
    });
}
