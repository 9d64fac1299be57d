/** Does an If-None-Match header list this ETag (weak comparison, RFC 9110 §13.1.2)? */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
