// `npm run bench:import`: time and peak memory of `ops catalogue import --format fragrantica-csv`
// on a 100,000-line file, against a file a tenth its size, to show memory stays bounded (the CSV
// is streamed: one row at a time, one bulk batch in flight at a time).
//
// Writes the two CSV files from the generated catalogue (every line valid, the Fragrantica layout:
// `;`-separated, slugs, decimal commas), then runs the real CLI as a child process for each size
// in interleaved rounds (ABBA), sampling the child's VmHWM (peak resident set) from /proc every
// 50 ms, each run into an alias of its own that is deleted afterwards. Prints each run, then
// medians and the ratio of peak RSS (100k / 10k); the last line is one JSON object.
//
// Options (env): ELASTICSEARCH_URL (dev cluster http://127.0.0.1:9200, started if default),
// BENCH_LINES (100000), BENCH_ROUNDS (1: one run of each size; 2 gives ABBA), BENCH_HEAP_MB (unset:
// V8's default heap limit; a number caps the child's old generation with --max-old-space-size, so
// an import that finishes under a small cap shows its memory is bounded, not merely lazily collected).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { Client } from '@elastic/elasticsearch';
import { generateCatalogue } from '@fragrance/dataset';
import { listVersions } from '@fragrance/search';
import { benchConfig, ImportBenchConfig, inheritedEnv } from './config.ts';
import { ensureElasticsearch, ROOT, say } from './support.ts';

const config = benchConfig(ImportBenchConfig);
const SIZES = [Math.round(config.BENCH_LINES / 10), config.BENCH_LINES] as const;

const HEADER =
  'url;Perfume;Brand;Country;Gender;Rating Value;Rating Count;Year;Top;Middle;Base;Perfumer1;Perfumer2;mainaccord1;mainaccord2;mainaccord3;mainaccord4;mainaccord5';
const COUNTRY_NAMES: Record<string, string> = { FR: 'France', IT: 'Italy', US: 'United States', GB: 'United Kingdom', JP: 'Japan' };
const GENDERS = ['women', 'men', 'unisex'];
const slug = (text: string) =>
  text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** `lines` data lines in Fragrantica's layout, from the generated catalogue (the header is extra). */
async function writeFragranticaCsv(file: string, lines: number): Promise<number> {
  const out = createWriteStream(file);
  out.write(`${HEADER}\n`);
  let i = 0;
  for (const r of generateCatalogue({ count: lines, seed: 7 })) {
    const accords = [...r.main_accords, '', '', '', '', ''].slice(0, 5);
    const line = [
      `https://www.fragrantica.com/perfume/${slug(r.brand)}/${slug(r.name)}-${i}.html`,
      slug(r.name) || `perfume-${i}`,
      slug(r.brand) || 'unknown-brand',
      COUNTRY_NAMES[r.country] ?? r.country,
      GENDERS[i % 3],
      r.rating.average === null ? '' : r.rating.average.toFixed(2).replace('.', ','),
      String(r.rating.count),
      r.year_released === null ? '' : String(r.year_released),
      r.notes.top.join(', '),
      r.notes.heart.join(', '),
      r.notes.base.join(', '),
      slug(r.perfumers[0] ?? '') || 'unknown',
      slug(r.perfumers[1] ?? '') || 'unknown',
      ...accords,
    ].join(';');
    if (!out.write(`${line}\n`)) await once(out, 'drain');
    i += 1;
  }
  out.end();
  await once(out, 'finish');
  return i;
}

const peakRssMiB = (pid: number): number => {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0; // exited between samples
  }
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** One real `ops catalogue import` run: wall time, peak RSS, and what it reported. */
async function importOnce(client: Client, file: string): Promise<{ seconds: number; peakMiB: number; imported: number }> {
  const alias = `bench-import-${randomBytes(3).toString('hex')}`;
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(config.BENCH_HEAP_MB ? [`--max-old-space-size=${config.BENCH_HEAP_MB}`] : []),
      'packages/ops/src/cli.ts',
      'catalogue',
      'import',
      '--format',
      'fragrantica-csv',
      file,
      '--alias',
      alias,
      '--keep',
      '0',
    ],
    { cwd: ROOT, env: { PATH: inheritedEnv().PATH ?? '', ELASTICSEARCH_URL: config.ELASTICSEARCH_URL }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let peakMiB = 0;
  const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, peakRssMiB(child.pid!))), 50);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  try {
    if (code !== 0) throw new Error(`import exited with ${code}: ${stderr.slice(-500)}`);
    const imported = Number(/imported (\d+) records/.exec(stdout)?.[1] ?? NaN);
    return { seconds, peakMiB, imported };
  } finally {
    const versions = await listVersions(client, alias).catch(() => []);
    if (versions.length) await client.indices.delete({ index: versions.join(','), ignore_unavailable: true });
  }
}

ensureElasticsearch(config.ELASTICSEARCH_URL);
const client = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 120_000 });
const dir = await mkdtemp(join(tmpdir(), 'bench-import-'));
try {
  const files = new Map<number, string>();
  for (const size of SIZES) {
    const file = join(dir, `fragrantica-${size}.csv`);
    await writeFragranticaCsv(file, size);
    files.set(size, file);
  }
  say('import', `files written: ${SIZES.map((s) => `${s} lines`).join(', ')}`);
  const runs: { lines: number; seconds: number; peakMiB: number }[] = [];
  for (let round = 0; round < config.BENCH_ROUNDS; round++) {
    // ABBA: drift in the machine's load falls on both sizes alike.
    for (const size of round % 2 === 0 ? SIZES : [...SIZES].reverse()) {
      const result = await importOnce(client, files.get(size)!);
      if (result.imported !== size) throw new Error(`imported ${result.imported} of ${size} lines`);
      runs.push({ lines: size, seconds: result.seconds, peakMiB: result.peakMiB });
      say(
        'import',
        `${size} lines: ${result.seconds.toFixed(1)} s (${Math.round(size / result.seconds)} lines/s), peak RSS ${result.peakMiB.toFixed(0)} MiB`,
      );
    }
  }
  const of = (size: number) => runs.filter((r) => r.lines === size);
  const summary = Object.fromEntries(
    SIZES.map((size) => [
      `lines_${size}`,
      {
        median_seconds: Math.round(median(of(size).map((r) => r.seconds)) * 10) / 10,
        lines_per_second: Math.round(size / median(of(size).map((r) => r.seconds))),
        peak_rss_mib: Math.round(Math.max(...of(size).map((r) => r.peakMiB))),
      },
    ]),
  );
  const ratio = Math.max(...of(config.BENCH_LINES).map((r) => r.peakMiB)) / Math.max(...of(SIZES[0]).map((r) => r.peakMiB));
  say(
    'import',
    `peak RSS ${config.BENCH_LINES} lines / ${SIZES[0]} lines: ${ratio.toFixed(2)} for ${config.BENCH_LINES / SIZES[0]}× the lines`,
  );
  console.log(
    JSON.stringify({
      bench: 'import',
      format: 'fragrantica-csv',
      rounds: config.BENCH_ROUNDS,
      heap_limit_mib: config.BENCH_HEAP_MB ?? null,
      ...summary,
      peak_rss_ratio: Math.round(ratio * 100) / 100,
    }),
  );
} finally {
  await rm(dir, { recursive: true, force: true });
  await client.close();
}
