import type { Request } from 'express';
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';

/** Longest page origin passed on (a real one is far shorter): anything longer is treated as none. */
const MAX_ORIGIN_LENGTH = 300;

/**
 * The page origin a request comes from: `Origin`, else the origin of `Referer` (browsers send one
 * or the other from a page), else undefined. `null` (sandboxed frames, files) is kept: it matches
 * no allowed origin.
 */
export function pageOriginOf(req: Request): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined) return origin.length <= MAX_ORIGIN_LENGTH ? origin : 'null';
  const referer = req.headers.referer;
  if (referer === undefined) return undefined;
  try {
    const { origin: refererOrigin } = new URL(referer);
    return refererOrigin.length <= MAX_ORIGIN_LENGTH ? refererOrigin : 'null';
  } catch {
    return 'null';
  }
}

/**
 * Does `Origin` name this edge itself (the page is the edge's own, e.g. the /docs "try it")? Its
 * host is the request's Host, or it is the configured public origin.
 */
export function isOwnOrigin(origin: string, req: Request, publicOrigin: string): boolean {
  if (origin === publicOrigin) return true;
  const host = req.headers.host;
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`);
}

/** An address as the limits count it (see clientAddressOf), or 'unknown' for text that is no address. */
function countedAddress(raw: string): string {
  if (!ipaddr.isValid(raw)) return 'unknown';
  const address = ipaddr.process(raw);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

/**
 * Addresses seen lately, as counted: a client's requests come from the same few addresses, and
 * parsing one again cost ~1 % of the edge's CPU per request. Text longer than any address is not
 * kept.
 */
const counted = new LRUCache<string, string>({ max: 4_096 });
const LONGEST_ADDRESS = 64;

/**
 * The client's address as `trust proxy` (TRUST_PROXY) says (Express's req.ip), for per-visitor
 * limits and the key's last use: IPv4-mapped IPv6 as IPv4, and IPv6 cut to its /64 (one
 * subscriber's network), so a visitor cannot dodge the limit by rotating through its own prefix.
 */
export function clientAddressOf(req: Request): string {
  const raw = req.ip ?? req.socket.remoteAddress ?? '';
  let address = counted.get(raw);
  if (address === undefined) {
    address = countedAddress(raw);
    if (raw.length <= LONGEST_ADDRESS) counted.set(raw, address);
  }
  return address;
}

/**
 * The `limit` a request asks for (the largest, if repeated; the catalogue refuses repeats
 * anyway), or undefined. Names are decoded as the catalogue decodes them, so `li%6Dit` counts.
 */
export function requestedLimitOf(req: Request): number | undefined {
  const query = req.url.indexOf('?');
  if (query === -1) return undefined;
  let largest: number | undefined;
  for (const value of new URLSearchParams(req.url.slice(query + 1)).getAll('limit')) {
    const n = Number(value);
    if (Number.isFinite(n) && (largest === undefined || n > largest)) largest = n;
  }
  return largest;
}
