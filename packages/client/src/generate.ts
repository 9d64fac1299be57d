// `pnpm --filter @fragrance/client generate`: writes src/generated/openapi.ts, the types of every
// path, parameter and response of the data API, from the OpenAPI document the contracts build.
// Rerun it whenever an endpoint changes; generate.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { buildOpenApiDocument } from '@fragrance/contracts';

export const GENERATED_FILE = fileURLToPath(new URL('generated/openapi.ts', import.meta.url));

const HEADER = `// GENERATED FILE, do not edit: \`pnpm --filter @fragrance/client generate\` writes it with
// openapi-typescript from the OpenAPI document of packages/contracts (buildOpenApiDocument).
/* eslint-disable */
`;

/** The generated module's text, formatted as the repository formats TypeScript. */
export async function renderTypes(): Promise<string> {
  const ast = await openapiTS(JSON.stringify(buildOpenApiDocument()), { alphabetize: false, exportType: false });
  const config = (await resolveConfig(GENERATED_FILE)) ?? {};
  return format(HEADER + astToString(ast), { ...config, filepath: GENERATED_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED_FILE, await renderTypes());
  console.log(`wrote ${GENERATED_FILE}`);
}
