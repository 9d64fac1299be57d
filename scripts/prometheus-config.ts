// Writes a Prometheus config scraping the given targets with the project's rules:
//   node scripts/prometheus-config.ts --out FILE [--interval 15s] service=host:port ...
// e.g. gateway=127.0.0.1:9480 catalogue=127.0.0.1:9481 (several instances: repeat the service).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { parseTargets, prometheusConfig } from '@fragrance/metrics';

const RULE_FILES = [fileURLToPath(new URL('../infra/prometheus/rules/*.yml', import.meta.url))];

const { values, positionals } = parseArgs({
  options: { out: { type: 'string' }, interval: { type: 'string', default: '15s' } },
  allowPositionals: true,
});
if (!values.out) {
  process.stderr.write('usage: node scripts/prometheus-config.ts --out FILE [--interval 15s] service=host:port ...\n');
  process.exit(2);
}
try {
  writeFileSync(
    values.out,
    prometheusConfig({ targets: parseTargets(positionals), ruleFiles: RULE_FILES, scrapeInterval: values.interval }),
  );
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
