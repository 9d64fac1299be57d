// Test support: one HTTP/1.1 request written byte for byte on a socket, for headers that fetch
// refuses to send (control characters, bytes above 0x7f, oversized or malformed values).
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated headers keep every value. */
  headers: Map<string, string[]>;
  body: string;
}

export async function rawRequest(
  url: string,
  init: {
    method?: string;
    headers?: readonly (readonly [string, string])[];
    body?: string;
    /** Send the body as one chunk of Transfer-Encoding: chunked (add that header) instead of with Content-Length. */
    chunked?: boolean;
  } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  const content = init.body === undefined ? undefined : Buffer.from(init.body, 'utf8');
  const body =
    content && init.chunked
      ? Buffer.concat([Buffer.from(`${content.length.toString(16)}\r\n`), content, Buffer.from('\r\n0\r\n\r\n')])
      : content;
  const lines = [`${init.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`, `Host: ${target.host}`, 'Connection: close'];
  for (const [name, value] of init.headers ?? []) lines.push(`${name}: ${value}`);
  if (body && !init.chunked) lines.push(`Content-Length: ${body.length}`);
  // latin1 keeps every code point below 256 as exactly that byte on the wire.
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');

  const raw = await new Promise<Buffer>((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
    socket.setTimeout(10_000, () => socket.destroy(new Error('raw request timed out')));
    socket.write(body ? Buffer.concat([head, body]) : head);
  });

  const text = raw.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...headerLines] = text.slice(0, split === -1 ? text.length : split).split('\r\n');
  const headers = new Map<string, string[]>();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  if (!Number.isInteger(status)) throw new Error(`no HTTP status line in ${JSON.stringify(text.slice(0, 100))}`);
  const chunked = headers.get('transfer-encoding')?.some((v) => /chunked/i.test(v)) ?? false;
  const rest = split === -1 ? '' : text.slice(split + 4);
  return { status, headers, body: Buffer.from(chunked ? unchunk(rest) : rest, 'latin1').toString('utf8') };
}

function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    if (eol === -1) return out;
    const size = parseInt(text.slice(at, eol), 16);
    if (!size) return out;
    out += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}
