// Sends generated cases to a running edge exactly as generated and tallies the verdicts.
import fc from 'fast-check';
import { Agent } from 'undici';
import { slugOf } from '@fragrance/contracts';
import { fuzzCase, type FuzzCase, type FuzzContext } from './cases.ts';
import { judge, type Answer, type Verdict } from './judge.ts';
import { loadApiModel } from './model.ts';

export interface Fuzzer {
  context: FuzzContext;
  /** Sends one case (the path is not normalised on the way: odd paths arrive as generated). */
  send: (fuzzCase: FuzzCase) => Promise<Answer>;
  check: (fuzzCase: FuzzCase) => Promise<Verdict & { status: number }>;
  close: () => Promise<void>;
}

/** Reads the document and some real values from the edge, so cases can be built from both. */
export async function createFuzzer(target: { baseUrl: string; apiKey: string; knownIds: readonly string[] }): Promise<Fuzzer> {
  const agent = new Agent({ connections: 16, keepAliveTimeout: 10_000 });
  const origin = new URL(target.baseUrl).origin;
  const send = async (fuzzCase: FuzzCase): Promise<Answer> => {
    const res = await agent.request({ origin, path: fuzzCase.target, method: 'GET', headers: fuzzCase.headers });
    const body = await res.body.text();
    const contentType = res.headers['content-type'];
    return { status: res.statusCode, contentType: typeof contentType === 'string' ? contentType : '', body };
  };
  const model = await loadApiModel(target.baseUrl);
  const auth = { authorization: `Bearer ${target.apiKey}` };
  const firstPage = await fetch(`${target.baseUrl}${model.basePath}/fragrances?limit=50`, { headers: auth });
  const page = (await firstPage.json()) as {
    data: { brand: string; name: string; country?: string }[];
    next_cursor: string | null;
  };
  if (!page.next_cursor) throw new Error('the catalogue is too small to page: no next_cursor on the first page');
  const details = await Promise.all(
    target.knownIds.slice(0, 20).map(async (id) => {
      const res = await fetch(`${target.baseUrl}${model.basePath}/fragrances/${id}`, { headers: auth });
      return (await res.json()) as { notes: { top: string[]; heart: string[]; base: string[] }; accords: string[]; perfumers: string[] };
    }),
  );
  const notes = [...new Set(details.flatMap((d) => [...d.notes.top, ...d.notes.heart, ...d.notes.base]))];
  const accords = [...new Set(details.flatMap((d) => d.accords))];
  const brands = [...new Set(page.data.map((d) => d.brand))];
  const words = [...new Set(page.data.flatMap((d) => d.name.split(/\s+/)))].filter((w) => w.length > 2);
  // GET /v1/usage: valid ranges lie within the last 90 quota days (UTC here), `from` before `to`.
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
  // Its `key_id`: a key of the caller's own owner (the calling key's id, as /v1/usage names it).
  const ownUsage = await fetch(`${target.baseUrl}${model.basePath}/usage`, { headers: auth });
  const ownKeyId = ((await ownUsage.json()) as { key_id: string }).key_id;
  const span = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => daysAgo(first + i));
  const context: FuzzContext = {
    model,
    apiKey: target.apiKey,
    knownIds: target.knownIds,
    vocabulary: {
      query: [...words, ...notes],
      q: [...words, ...brands],
      search: [...words, ...brands, ...notes],
      perfumer: [...new Set(details.flatMap((d) => d.perfumers))],
      slug: brands.map(slugOf),
      brand: brands,
      note: notes,
      exclude_note: notes,
      accord: accords,
      exclude_accord: accords,
      from: span(20, 80),
      to: span(0, 19),
      // GET /v1/usage/searches: a day among the last 35 quota days.
      day: span(0, 34),
      key_id: [ownKeyId],
    },
    cursor: { query: 'limit=50', value: page.next_cursor },
  };
  return {
    context,
    send,
    check: async (fuzzCase) => {
      const answer = await send(fuzzCase);
      return { status: answer.status, ...judge(model, fuzzCase, answer, target.apiKey) };
    },
    close: () => agent.close(),
  };
}

export interface Tally {
  cases: number;
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  failures: Record<string, number>;
  /** The first few failing cases, to reproduce them. */
  examples: { kind: string; target: string; status: number; failure: string; detail?: string }[];
}

/** Runs `runs` cases from a fixed seed, `concurrency` at a time, and counts what came back. */
export async function fuzzRun(fuzzer: Fuzzer, options: { runs: number; seed: number; concurrency?: number }): Promise<Tally> {
  const { runs, seed, concurrency = 8 } = options;
  const tally: Tally = { cases: 0, byStatus: {}, byKind: {}, failures: {}, examples: [] };
  const cases = fc.sample(fuzzCase(fuzzer.context), { numRuns: runs, seed });
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const fuzzCase = cases[next++];
      if (!fuzzCase) break;
      const verdict = await fuzzer.check(fuzzCase);
      tally.cases += 1;
      tally.byStatus[verdict.status] = (tally.byStatus[verdict.status] ?? 0) + 1;
      tally.byKind[fuzzCase.kind] = (tally.byKind[fuzzCase.kind] ?? 0) + 1;
      if (verdict.failure) {
        tally.failures[verdict.failure] = (tally.failures[verdict.failure] ?? 0) + 1;
        if (tally.examples.length < 20) {
          tally.examples.push({
            kind: fuzzCase.kind,
            target: fuzzCase.target.slice(0, 300),
            status: verdict.status,
            failure: verdict.failure,
            ...(verdict.detail ? { detail: verdict.detail } : {}),
          });
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tally;
}
