// npm run fuzz -- [--runs 50000] [--seed N] [--concurrency 8] [--records 2000]
//                 [--elasticsearch URL] [--redis URL]
// Starts its own catalogue + gateway over a generated catalogue (the test Elasticsearch and
// Redis by default, started when missing), sends `runs` generated cases, prints counts by status,
// kind and failure, then one JSON line. Exits 1 when any case broke the contract.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startLocalElasticsearch, startLocalRedis } from '@fragrance/testkit';
import { createFuzzer, fuzzRun } from './run.ts';
import { startFuzzStack } from './stack.ts';

const USAGE = 'npm run fuzz -- [--runs N] [--seed N] [--concurrency N] [--records N] [--elasticsearch URL] [--redis URL]';
const options = {
  runs: { type: 'string', default: '1000' },
  seed: { type: 'string' },
  concurrency: { type: 'string', default: '8' },
  records: { type: 'string', default: '2000' },
  elasticsearch: { type: 'string' },
  redis: { type: 'string' },
  help: { type: 'boolean' },
} as const;
const parsed = (() => {
  try {
    return parseArgs({ options });
  } catch (error) {
    // An unknown or malformed option: say which, and how to call it, without a stack trace.
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\nusage: ${USAGE}\n`);
    process.exit(2);
  }
})();
if (parsed.values.help) {
  process.stdout.write(`usage: ${USAGE}\n`);
  process.exit(0);
}
const { values } = parsed;
const positive = (name: string, value: string | undefined): number => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1) {
    process.stderr.write(`--${name} must be a positive integer, not ${JSON.stringify(value)}\n`);
    process.exit(2);
  }
  return n;
};
const runs = positive('runs', values.runs);
const seed = values.seed === undefined ? Date.now() % 1_000_000_000 : positive('seed', values.seed);
const concurrency = positive('concurrency', values.concurrency);
const records = positive('records', values.records);
const say = (message: string) => void process.stderr.write(`[fuzz] ${message}\n`);

const elasticsearchUrl = values.elasticsearch ?? (await startLocalElasticsearch());
const redisUrl = values.redis ?? (await startLocalRedis());
say(`starting catalogue + gateway over ${records} records (Elasticsearch ${elasticsearchUrl}, Redis ${redisUrl})`);
// As deployed: the catalogue with the embedding model, so hybrid search is fuzzed too.
const target = await startFuzzStack({
  elasticsearchUrl,
  redisUrl,
  prefix: `fuzz-${randomBytes(4).toString('hex')}-`,
  records,
  embeddings: true,
});
let exitCode = 0;
try {
  const fuzzer = await createFuzzer(target);
  say(`${runs} cases, seed ${seed}, ${concurrency} at a time`);
  const started = performance.now();
  const tally = await fuzzRun(fuzzer, { runs, seed, concurrency });
  const seconds = (performance.now() - started) / 1_000;
  await fuzzer.close();
  const failures = Object.values(tally.failures).reduce((a, b) => a + b, 0);
  const fiveHundreds = Object.entries(tally.byStatus)
    .filter(([status]) => status.startsWith('5'))
    .reduce((sum, [, n]) => sum + n, 0);
  process.stdout.write(`cases: ${tally.cases} in ${seconds.toFixed(1)} s (${(tally.cases / seconds).toFixed(0)}/s), seed ${seed}\n`);
  process.stdout.write(`by status: ${JSON.stringify(tally.byStatus)}\n`);
  process.stdout.write(`by kind: ${JSON.stringify(tally.byKind)}\n`);
  process.stdout.write(`failures: ${failures} ${JSON.stringify(tally.failures)}\n`);
  for (const example of tally.examples) process.stdout.write(`  ${JSON.stringify(example)}\n`);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'fuzz',
      cases: tally.cases,
      seed,
      seconds: Number(seconds.toFixed(1)),
      status_5xx: fiveHundreds,
      schema_mismatches: (tally.failures.schema_mismatch ?? 0) + (tally.failures.problem_schema_mismatch ?? 0),
      failures,
      by_status: tally.byStatus,
    })}\n`,
  );
  if (failures > 0) exitCode = 1;
} finally {
  await target.stop();
}
process.exit(exitCode);
