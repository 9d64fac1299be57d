import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { EMBEDDING_MODEL, EMBEDDING_MODEL_KEY } from './model-info.ts';

/**
 * Tokens per text. The model was trained on sequences of 128 tokens; a record's text rarely
 * reaches it, and longer inputs cost quadratically for little gain.
 */
export const MAX_TOKENS = 128;

/** Thrown when the model files are not where the configuration says. */
export class EmbeddingModelMissingError extends Error {
  readonly directory: string;
  constructor(directory: string, missing: string) {
    super(`the embedding model is missing: ${missing} not found in ${directory}; fetch it with \`bash infra/embedding-model.sh fetch\``);
    this.name = 'EmbeddingModelMissingError';
    this.directory = directory;
  }
}

export interface Embedder {
  readonly model: typeof EMBEDDING_MODEL;
  /** `<id>@<version>` of the model. */
  readonly modelKey: string;
  /** One L2-normalised vector per text, in order; texts are run through the model `batchSize` at a time. */
  embed: (texts: readonly string[]) => Promise<Float32Array[]>;
  close: () => Promise<void>;
}

export interface EmbedderOptions {
  /** Directory holding model.onnx and tokenizer.json (infra/embedding-model.sh path). */
  directory: string;
  /** Texts per model call; default 32. */
  batchSize?: number;
  /** ONNX Runtime intra-op threads; default 1 (processes are scaled out, not threads). */
  threads?: number;
}

/** The part of @huggingface/tokenizers' Tokenizer we use. */
interface TextTokenizer {
  encode: (text: string) => { ids: number[]; attention_mask: number[] };
}
// The package's type declarations import their own files without extensions, which NodeNext
// resolution cannot follow, so its class has no usable type here: it is given the one we use.
const WordPieceTokenizer = Tokenizer as unknown as new (tokenizerJson: object, config: object) => TextTokenizer;

const MODEL_FILE = 'model.onnx';
const TOKENIZER_FILE = 'tokenizer.json';

/**
 * Mean of the token vectors where the attention mask is 1, then L2 normalisation: the pooling
 * all-MiniLM-L6-v2 was trained with, so cosine similarity is a dot product.
 */
export function meanPool(hidden: Float32Array, mask: readonly (readonly number[])[], seqLength: number, dims: number): Float32Array[] {
  return mask.map((row, b) => {
    const out = new Float32Array(dims);
    let count = 0;
    for (let t = 0; t < seqLength; t++) {
      if (row[t] !== 1) continue;
      count++;
      const base = (b * seqLength + t) * dims;
      for (let d = 0; d < dims; d++) out[d]! += hidden[base + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) {
      out[d]! /= Math.max(count, 1);
      norm += out[d]! * out[d]!;
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) out[d]! /= norm;
    return out;
  });
}

/** Throws EmbeddingModelMissingError unless the model and its tokenizer are in `directory`. */
export function assertModelFiles(directory: string): void {
  for (const file of [MODEL_FILE, TOKENIZER_FILE]) {
    if (!existsSync(join(directory, file))) throw new EmbeddingModelMissingError(directory, file);
  }
}

/** Loads the model once (per process) and returns an embedder; throws EmbeddingModelMissingError when a file is missing. */
export async function loadEmbedder({ directory, batchSize = 32, threads = 1 }: EmbedderOptions): Promise<Embedder> {
  assertModelFiles(directory);
  const tokenizer = new WordPieceTokenizer(JSON.parse(readFileSync(join(directory, TOKENIZER_FILE), 'utf8')) as object, {});
  const session = await ort.InferenceSession.create(join(directory, MODEL_FILE), {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
  });
  const dims = EMBEDDING_MODEL.dimensions;

  function tokenize(text: string): { ids: number[]; mask: number[] } {
    const { ids, attention_mask } = tokenizer.encode(text);
    if (ids.length <= MAX_TOKENS) return { ids, mask: attention_mask };
    // Keep [CLS] … and the closing [SEP].
    return { ids: [...ids.slice(0, MAX_TOKENS - 1), ids.at(-1)!], mask: attention_mask.slice(0, MAX_TOKENS) };
  }

  /** One model call over texts of the same token count (no padding, see embed). */
  async function embedBatch(encoded: readonly { ids: number[]; mask: number[] }[]): Promise<Float32Array[]> {
    const seqLength = encoded[0]?.ids.length ?? 0;
    const size = encoded.length * seqLength;
    const inputIds = new BigInt64Array(size);
    const attention = new BigInt64Array(size);
    encoded.forEach(({ ids, mask }, b) => {
      for (let t = 0; t < seqLength; t++) {
        inputIds[b * seqLength + t] = BigInt(ids[t]!);
        attention[b * seqLength + t] = BigInt(mask[t]!);
      }
    });
    const shape = [encoded.length, seqLength];
    const output = await session.run({
      input_ids: new ort.Tensor('int64', inputIds, shape),
      attention_mask: new ort.Tensor('int64', attention, shape),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(size), shape),
    });
    const hidden = output.last_hidden_state;
    if (hidden?.dims[2] !== dims) throw new Error(`the embedding model returned no last_hidden_state of ${dims} dimensions`);
    return meanPool(
      hidden.data as Float32Array,
      encoded.map((e) => e.mask),
      seqLength,
      dims,
    );
  }

  /**
   * Texts go through the model in groups of equal token count, never padded: the quantized model
   * scales its activations per call, so padding would shift a text's vector (cosine ~0.99 to itself
   * alone). Measured on our machines, batching buys little over single calls anyway.
   */
  async function embed(texts: readonly string[]): Promise<Float32Array[]> {
    const encoded = texts.map((text, i) => ({ ...tokenize(text), i })).sort((a, b) => a.ids.length - b.ids.length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < encoded.length;) {
      const length = encoded[start]!.ids.length;
      let end = start + 1;
      while (end < encoded.length && end - start < batchSize && encoded[end]!.ids.length === length) end++;
      const group = encoded.slice(start, end);
      const batch = await embedBatch(group);
      group.forEach((g, j) => (vectors[g.i] = batch[j]!));
      start = end;
    }
    return vectors;
  }

  return { model: EMBEDDING_MODEL, modelKey: EMBEDDING_MODEL_KEY, embed, close: () => session.release() };
}

/** Cosine similarity of two vectors (dot product divided by both norms). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / (Math.sqrt(na * nb) || 1);
}
