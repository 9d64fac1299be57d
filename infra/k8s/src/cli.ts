// `pnpm --filter @fragrance/k8s validate [overlay...]`: renders each overlay (default: all) and
// prints schema errors and policy violations; exits 1 when there are any.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { kubectlAvailable, renderOverlay } from './render.ts';
import { policyViolations } from './policy.ts';
import { validateSchemas } from './schemas.ts';

const overlaysDir = join(import.meta.dirname, '..', 'overlays');
const overlays = process.argv.length > 2 ? process.argv.slice(2) : readdirSync(overlaysDir);

if (!(await kubectlAvailable())) {
  process.stderr.write('kubectl not found: cannot render the overlays (install kubectl, which ships kustomize)\n');
  process.exit(2);
}
let failures = 0;
for (const overlay of overlays) {
  const objects = await renderOverlay(join(overlaysDir, overlay));
  const problems = [...(await validateSchemas(objects)), ...policyViolations(objects)];
  failures += problems.length;
  process.stdout.write(`${overlay}: ${objects.length} objects, ${problems.length} problems\n`);
  for (const problem of problems) process.stdout.write(`  ${problem}\n`);
}
process.exitCode = failures > 0 ? 1 : 0;
