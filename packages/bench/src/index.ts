export { newLatencyHistogram, runLoad, type LoadOptions, type LoadRequest, type LoadResult } from './load.ts';
export { pick, seededRandom } from './random.ts';
