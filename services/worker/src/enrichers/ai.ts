import type { Concentration, FragranceDetail } from '@fragrance/contracts';
import { deriveAccords, deriveOccasions, deriveSeasons, OCCASIONS, SEASONS } from '@fragrance/vocabulary';
import { z } from 'zod';
import { fieldsOf } from '../enrich/apply.ts';
import type { EnrichableField, Enricher, Supplied, SuppliedValues } from './types.ts';

/** The fields `ai_enriched` derives. */
export const AI_FIELDS = ['accords', 'description', 'seasons', 'occasions'] as const;
export type AiField = (typeof AI_FIELDS)[number];

export interface AiInput {
  id: string;
  name: string;
  brand: string;
  concentration: Concentration;
  year_released: number | null;
  notes: FragranceDetail['notes'];
  /** The row's accords when it has them (the model then builds on them). */
  accords: string[];
  want: AiField[];
}

export interface AiOutput {
  accords: string[];
  description: string | null;
  seasons: string[];
  occasions: string[];
}

/** Where derived metadata comes from: the local rules, or a model behind an OpenAI-compatible API. */
export interface AiModel {
  readonly kind: 'local' | 'openai';
  derive(inputs: readonly AiInput[], signal?: AbortSignal): Promise<AiOutput[]>;
}

const list = (items: readonly string[]): string => {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
};

/** A short, factual description built only from the record (deterministic). */
export function localDescription(input: AiInput, accords: readonly string[]): string {
  const article = /^[AEIOU]/i.test(input.concentration) ? 'An' : 'A';
  const year = input.year_released ? `, released in ${input.year_released}` : '';
  const sentences = [`${article} ${input.concentration.toLowerCase()} by ${input.brand}${year}.`];
  if (accords.length > 0) sentences.push(`Its character is ${list(accords.slice(0, 3))}.`);
  const { top, heart, base } = input.notes;
  const pyramid: string[] = [];
  if (top.length > 0) pyramid.push(`opens with ${list(top.slice(0, 3))}`);
  if (heart.length > 0) pyramid.push(`has a heart of ${list(heart.slice(0, 3))}`);
  if (base.length > 0) pyramid.push(`settles on ${list(base.slice(0, 3))}`);
  if (pyramid.length > 0) sentences.push(`It ${list(pyramid)}.`);
  return `${input.name}: ${sentences.join(' ')}`;
}

/** The default: the same note→accord table and season/occasion rules the dataset uses. */
export function localModel(): AiModel {
  return {
    kind: 'local',
    async derive(inputs) {
      return inputs.map((input) => {
        const accords = input.accords.length > 0 ? input.accords : deriveAccords(input.notes);
        return {
          accords,
          description: localDescription(input, accords),
          seasons: accords.length > 0 ? deriveSeasons(accords) : [],
          occasions: accords.length > 0 ? deriveOccasions(accords, input.concentration) : [],
        };
      });
    },
  };
}

/** The model answered with something other than the JSON asked for (or an HTTP error). */
export class AiEndpointError extends Error {
  readonly code = 'ai_endpoint';
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.name = 'AiEndpointError';
    this.status = status;
  }
}

const ChatCompletion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

const ModelAnswer = z.object({
  accords: z.array(z.string()).max(20).default([]),
  description: z.string().max(1_000).nullable().default(null),
  seasons: z.array(z.string()).max(10).default([]),
  occasions: z.array(z.string()).max(10).default([]),
});

const SYSTEM_PROMPT = [
  'You enrich records of a fragrance catalogue. Reply with one JSON object only:',
  '{"accords": [strongest first, lower case, at most 8], "description": "one or two factual sentences, at most 300 characters",',
  `"seasons": [subset of ${JSON.stringify(SEASONS)}], "occasions": [subset of ${JSON.stringify(OCCASIONS)}]}.`,
  'Use only the notes and facts given; never invent perfumers, prices or awards.',
].join(' ');

const clean = (items: readonly string[], allowed?: readonly string[]): string[] => {
  const out = [...new Set(items.map((s) => s.trim().toLowerCase()).filter((s) => s.length > 0 && s.length <= 40))];
  return allowed ? out.filter((s) => allowed.includes(s)) : out;
};

/**
 * A chat-completions endpoint (OpenAI, or anything that speaks its protocol: vLLM, Ollama,
 * LM Studio…). One request per record, `concurrency` at a time; any HTTP or format error fails
 * the batch, which BullMQ then retries with backoff.
 */
export function openAiModel(options: {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  concurrency: number;
}): AiModel {
  const ask = async (input: AiInput, signal?: AbortSignal): Promise<AiOutput> => {
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const response = await fetch(`${options.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: options.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          {
            role: 'user',
            content: JSON.stringify({
              name: input.name,
              brand: input.brand,
              concentration: input.concentration,
              year_released: input.year_released,
              notes: input.notes,
              known_accords: input.accords,
            }),
          },
        ],
      }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new AiEndpointError(`AI endpoint answered ${response.status}`, response.status);
    }
    const completion = ChatCompletion.safeParse(await response.json().catch(() => null));
    if (!completion.success) throw new AiEndpointError('AI endpoint answered without a chat completion');
    let content: unknown;
    try {
      content = JSON.parse(completion.data.choices[0]?.message.content ?? '');
    } catch {
      throw new AiEndpointError('AI endpoint answered with content that is not JSON');
    }
    const answer = ModelAnswer.safeParse(content);
    if (!answer.success) throw new AiEndpointError('AI endpoint answered JSON of the wrong shape');
    const description = answer.data.description?.trim() ?? '';
    return {
      accords: clean(answer.data.accords).slice(0, 8),
      description: description.length > 0 ? description.slice(0, 600) : null,
      seasons: clean(answer.data.seasons, SEASONS),
      occasions: clean(answer.data.occasions, OCCASIONS),
    };
  };

  return {
    kind: 'openai',
    async derive(inputs, signal) {
      const out = new Array<AiOutput>(inputs.length);
      let next = 0;
      const lane = async () => {
        while (next < inputs.length) {
          const i = next++;
          out[i] = await ask(inputs[i]!, signal);
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.concurrency, inputs.length) }, lane));
      return out;
    },
  };
}

const isEmpty = (value: unknown): boolean => value === null || value === undefined || (Array.isArray(value) && value.length === 0);

/** Which AI fields a row needs: empty ones, plus its own earlier ones on a full run; never operator-curated ones. */
export function aiWants(row: FragranceDetail, full: boolean): AiField[] {
  const curated = fieldsOf(row, 'operator_curated');
  const own = fieldsOf(row, 'ai_enriched');
  const record = row as unknown as Record<string, unknown>;
  return AI_FIELDS.filter((f) => !curated.has(f) && (isEmpty(record[f]) || (full && own.has(f))));
}

/**
 * `ai_enriched`: accords from notes, a short description, season and occasion tags. Fills empty
 * fields (and on a full run refreshes its own); operator-curated fields are never touched.
 */
export function aiEnricher(model: AiModel): Enricher {
  return {
    source: 'ai_enriched',
    async enrich(rows, ctx) {
      const inputs: AiInput[] = [];
      for (const row of rows) {
        const want = aiWants(row, ctx.full);
        if (want.length === 0) continue;
        inputs.push({
          id: row.id,
          name: row.name,
          brand: row.brand,
          concentration: row.concentration,
          year_released: row.year_released,
          notes: row.notes,
          accords: want.includes('accords') ? [] : row.accords,
          want,
        });
      }
      const out = new Map<string, Supplied>();
      if (inputs.length === 0) return out;
      const outputs = await model.derive(inputs, ctx.signal);
      const byId = new Map(rows.map((r) => [r.id, r]));
      inputs.forEach((input, i) => {
        const output = outputs[i];
        const row = byId.get(input.id);
        if (!output || !row) return;
        const values: SuppliedValues = {};
        if (input.want.includes('accords') && output.accords.length > 0) {
          values.accords = output.accords;
          if (!fieldsOf(row, 'operator_curated').has('main_accords' satisfies EnrichableField))
            values.main_accords = output.accords.slice(0, 5);
        }
        if (input.want.includes('description') && output.description) values.description = output.description;
        if (input.want.includes('seasons') && output.seasons.length > 0) values.seasons = output.seasons;
        if (input.want.includes('occasions') && output.occasions.length > 0) values.occasions = output.occasions;
        if (Object.keys(values).length > 0) out.set(input.id, { values, stamp: true });
      });
      return out;
    },
  };
}
