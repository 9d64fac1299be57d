import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How the proxy treats traffic: `pass` forwards it; `freeze` accepts connections and holds every
 * byte in both directions (a SIGSTOPped Elasticsearch: the kernel accepts, nothing answers) until
 * the next `pass`, which delivers what was held; `refuse` resets every connection, open or new
 * (a stopped one).
 */
export type FaultMode = 'pass' | 'freeze' | 'refuse';

export interface FaultProxy {
  /** http://127.0.0.1:<port>, to give the client under test instead of the real URL. */
  url: string;
  set: (mode: FaultMode) => void;
  /** Bytes clients sent so far, forwarded or held: a request the client never sent adds none. */
  readonly received: number;
  /** Bytes the server answered so far, forwarded or held: an answer started means it was computed. */
  readonly answered: number;
  close: () => Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
}

/**
 * A TCP proxy in front of a real server whose faults the test controls: outage tests run against
 * the shared test Elasticsearch (or Redis) without stopping or pausing it. Listens on 127.0.0.1,
 * port 0.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const { hostname, port } = new URL(target);
  let mode: FaultMode = 'pass';
  let received = 0;
  let answered = 0;
  const pairs = new Set<Pair>();

  const forward = (pair: Pair, from: Socket, to: Socket, held: Buffer[]) =>
    from.on('data', (chunk: Buffer) => {
      if (from === pair.client) received += chunk.length;
      else answered += chunk.length;
      if (mode === 'pass') to.write(chunk);
      else held.push(chunk);
    });
  const server: Server = createServer((client) => {
    if (mode === 'refuse') return void client.resetAndDestroy();
    const upstream = connect(Number(port), hostname);
    const pair: Pair = { client, upstream, held: { toUpstream: [], toClient: [] } };
    pairs.add(pair);
    forward(pair, client, upstream, pair.held.toUpstream);
    forward(pair, upstream, client, pair.held.toClient);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('error', end);
      socket.on('close', end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy has no port');

  return {
    url: `http://127.0.0.1:${address.port}`,
    get received() {
      return received;
    },
    get answered() {
      return answered;
    },
    set: (next) => {
      mode = next;
      for (const pair of pairs) {
        if (next === 'refuse') {
          pair.client.resetAndDestroy();
          pair.upstream.destroy();
        } else if (next === 'pass') {
          for (const chunk of pair.held.toUpstream.splice(0)) pair.upstream.write(chunk);
          for (const chunk of pair.held.toClient.splice(0)) pair.client.write(chunk);
        }
      }
    },
    close: async () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
