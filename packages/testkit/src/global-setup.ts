import type { TestProject } from 'vitest/node';
import { resolveEndpoints } from './endpoints.ts';
import './provided-context.ts';

/** Vitest global setup: resolves Elasticsearch and Redis once per run and hands them to tests. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const endpoints = await resolveEndpoints();
  project.provide('elasticsearchUrl', endpoints.elasticsearchUrl);
  project.provide('redisUrl', endpoints.redisUrl);
  return endpoints.stop;
}
