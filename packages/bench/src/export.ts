// `npm run bench:export`: ingest 75,000 generated records, start the catalogue service as its own
// process, and stream GET /v1/fragrances/export from it (identity and gzip, interleaved rounds),
// sampling the service's resident memory every 50 ms. Prints time, size and RSS (before, peak)
// per round, medians, and one JSON object last. Target: RSS growth bounded (one page of 1,000
// records), independent of the catalogue size.
//
// Options (env): ELASTICSEARCH_URL (dev cluster http://127.0.0.1:9200, started if default),
// BENCH_COUNT (75000), BENCH_ROUNDS (3), BENCH_PORT (a free port).
// The bench works under its own alias and deletes its indices afterwards.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Client } from '@elastic/elasticsearch';
import { Pool } from 'undici';
import { createFragranceClient } from '@fragrance/client';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue, listVersions } from '@fragrance/search';
import { freePort, waitForHealthy } from '@fragrance/testkit';
import { dispatcherFetch } from './load.ts';
import { benchConfig, ExportBenchConfig } from './config.ts';
import { ensureElasticsearch, say, startBenchService, stopChildren } from './support.ts';

const config = benchConfig(ExportBenchConfig);
const ALIAS = `bench-export-${randomBytes(3).toString('hex')}`;

const rssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

ensureElasticsearch(config.ELASTICSEARCH_URL);
const client = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 120_000 });
const port = config.BENCH_PORT ?? (await freePort());
// Its metrics on a free port (startBenchService), so the bench runs beside a running `npm start`.
const child = startBenchService(
  'catalogue',
  {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ELASTICSEARCH_URL: config.ELASTICSEARCH_URL,
    CATALOGUE_ALIAS: ALIAS,
    CURSOR_SECRET: randomBytes(32).toString('base64url'),
  },
  'export',
);
try {
  say('export', `ingesting ${config.BENCH_COUNT} records into ${ALIAS}`);
  await ingestCatalogue({ client, alias: ALIAS, records: generateCatalogue({ count: config.BENCH_COUNT, seed: 42 }) });
  const url = `http://127.0.0.1:${port}`;
  await waitForHealthy(url, 60_000);
  const pid = child.pid!;
  // The catalogue serves /v1 without keys. The client's fetch over an undici pool hands the body
  // on as it arrives and undecoded, so gzip rounds count the bytes that went over the wire.
  const pool = new Pool(url);
  const catalogue = createFragranceClient({ baseUrl: `${url}/v1`, fetch: dispatcherFetch(pool, { stream: true }) });
  const rounds: { encoding: string; seconds: number; mib: number; lines: number; rssBefore: number; rssPeak: number }[] = [];
  for (let round = 0; round < config.BENCH_ROUNDS; round++) {
    for (const encoding of ['identity', 'gzip']) {
      const rssBefore = rssMiB(pid);
      let rssPeak = rssBefore;
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(pid))), 50);
      const started = performance.now();
      // Read the raw bytes as they arrive (no decoding, nothing kept): what a mirroring client does.
      const body = await catalogue.exportStream({}, { gzip: encoding === 'gzip' });
      let bytes = 0;
      let lines = 0;
      for await (const chunk of body) {
        bytes += chunk.length;
        if (encoding === 'identity') for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      }
      const seconds = (performance.now() - started) / 1000;
      clearInterval(sampler);
      rounds.push({
        encoding,
        seconds,
        mib: bytes / 2 ** 20,
        lines: encoding === 'identity' ? lines : config.BENCH_COUNT,
        rssBefore,
        rssPeak,
      });
      say(
        'export',
        `${encoding}: ${config.BENCH_COUNT} records, ${(bytes / 2 ** 20).toFixed(1)} MiB in ${seconds.toFixed(2)} s; catalogue RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB`,
      );
      if (encoding === 'identity' && lines !== config.BENCH_COUNT)
        throw new Error(`streamed ${lines} lines, expected ${config.BENCH_COUNT}`);
    }
  }
  const summary = Object.fromEntries(
    ['identity', 'gzip'].map((encoding) => {
      const of = rounds.filter((r) => r.encoding === encoding);
      return [
        encoding,
        {
          median_seconds: Math.round(median(of.map((r) => r.seconds)) * 100) / 100,
          mib: Math.round(median(of.map((r) => r.mib)) * 10) / 10,
          records_per_second: Math.round(config.BENCH_COUNT / median(of.map((r) => r.seconds))),
          rss_before_mib: Math.round(median(of.map((r) => r.rssBefore))),
          rss_peak_mib: Math.round(Math.max(...of.map((r) => r.rssPeak))),
        },
      ];
    }),
  );
  await pool.close();
  console.log(JSON.stringify({ bench: 'export', records: config.BENCH_COUNT, rounds: config.BENCH_ROUNDS, ...summary }));
} finally {
  await stopChildren();
  const versions = await listVersions(client, ALIAS).catch(() => []);
  if (versions.length) await client.indices.delete({ index: versions.join(','), ignore_unavailable: true });
  await client.close();
}
