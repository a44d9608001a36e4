/**
 * What the embedders that ask a server share (Ollama's API, an
 * OpenAI-compatible one): batches, inputs cut to the model's context, the
 * prefixes some models expect, one retry, a circuit breaker, and answers
 * checked (count, dimension, finite numbers) before they are trusted. A
 * subclass says how to ask its server and how to read its failures. There
 * is no fallback: vectors from two embedders must never be mixed, so a
 * failure stops the run with an EmbedderError.
 */
import { CircuitBreaker } from '../analysis/llm/circuit-breaker.js';
import type { ServerFailure } from '../analysis/llm/http.js';
import {
  EmbedderError,
  normalizeRows,
  type Embedder,
  type EmbedderInitOptions,
  type QueryEmbeddingOptions,
} from './embedder.js';

/** What a remote embedder does when its options leave something out. */
export const REMOTE_EMBEDDER_DEFAULTS = {
  batchSize: 32,
  timeoutMs: 120_000,
  contextTokens: 2_048,
  failureThreshold: 3,
} as const;

export interface RemoteEmbedderOptions {
  /** Documents per request. Default 32. */
  batchSize?: number;
  /** Per request, reading the answer included. Default 120 s. */
  timeoutMs?: number;
  /** Bytes one answer may have. Default 64 MiB. */
  maxResponseBytes?: number;
  /** The model's context in tokens; longer inputs are cut to fit. Default 2,048. */
  contextTokens?: number;
  /** Failures in a row before no more calls are made. Default 3. */
  failureThreshold?: number;
  /** Prefixes some models expect (nomic-embed-text: "search_document: ", "search_query: "). */
  documentPrefix?: string;
  queryPrefix?: string;
}

/** What to do instead of a remote embedder, whatever failed. */
export const BUILTIN_INSTEAD =
  'or index with the built-in embedder instead (oc-vector-index --rebuild --embedder builtin)';

/** Conservative: code averages about 3.5 characters a token. */
const CHARS_PER_TOKEN = 3;

/** Failures a second attempt cannot mend: the next request would fail the same way. */
const FINAL: ReadonlySet<string> = new Set(['ABORTED', 'MODEL_MISSING', 'UNAUTHORIZED']);

export abstract class RemoteEmbedder implements Embedder {
  readonly model: string;
  readonly batchSize: number;
  abstract readonly id: string;
  abstract readonly host: string;
  protected readonly contextTokens: number;
  protected readonly timeoutMs: number;
  protected readonly maxResponseBytes: number | undefined;
  readonly #maxChars: number;
  readonly #breaker: CircuitBreaker;
  readonly #documentPrefix: string;
  readonly #queryPrefix: string;
  #dimension = 0;
  #calls = 0;

  constructor(model: string, options: RemoteEmbedderOptions) {
    const defaults = REMOTE_EMBEDDER_DEFAULTS;
    this.model = model;
    this.batchSize = options.batchSize ?? defaults.batchSize;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new RangeError(`batchSize must be a positive integer, not ${options.batchSize}`);
    this.contextTokens = options.contextTokens ?? defaults.contextTokens;
    this.#maxChars = this.contextTokens * CHARS_PER_TOKEN;
    this.#breaker = new CircuitBreaker(options.failureThreshold ?? defaults.failureThreshold);
    this.timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
    this.maxResponseBytes = options.maxResponseBytes;
    const nomic = /nomic-embed/.test(model);
    this.#documentPrefix = options.documentPrefix ?? (nomic ? 'search_document: ' : '');
    this.#queryPrefix = options.queryPrefix ?? (nomic ? 'search_query: ' : '');
  }

  /**
   * One request for `input`: the vectors as the server gave them, in the
   * order of `input` (checked by the caller), or a thrown failure.
   */
  protected abstract request(input: string[], signal: AbortSignal | undefined): Promise<unknown>;

  /** A failed request as an EmbedderError that says what happened, names the server and says what to do. */
  protected abstract classify(error: unknown, signal: AbortSignal | undefined): Promise<EmbedderError>;

  get dimension(): number {
    if (this.#dimension === 0)
      throw new EmbedderError('call init() first: the dimension comes from the model', 'NOT_INITIALIZED');
    return this.#dimension;
  }

  get calls(): number {
    return this.#calls;
  }

  async init(options: EmbedderInitOptions = {}): Promise<void> {
    if (this.#dimension > 0) return;
    if (options.dimension !== undefined && Number.isInteger(options.dimension) && options.dimension > 0) {
      this.#dimension = options.dimension; // every answer is still checked against it
      return;
    }
    const [probe] = await this.#embed(['ocvector'], options.signal);
    this.#dimension = probe!.length;
  }

  async embedDocuments(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array> {
    await this.init(signal ? { signal } : {});
    const out = new Float32Array(texts.length * this.#dimension);
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize).map((text) => this.#fit(this.#documentPrefix + text));
      const vectors = await this.#embed(batch, signal);
      vectors.forEach((vector, i) => out.set(vector, (start + i) * this.#dimension));
    }
    return normalizeRows(out, this.#dimension);
  }

  async embedQuery(text: string, options: QueryEmbeddingOptions = {}): Promise<Float32Array> {
    await this.init(options.signal ? { signal: options.signal } : {});
    const [vector] = await this.#embed([this.#fit(this.#queryPrefix + text)], options.signal);
    return normalizeRows(Float32Array.from(vector!), this.#dimension);
  }

  #fit(text: string): string {
    return text.length > this.#maxChars ? text.slice(0, this.#maxChars) : text;
  }

  /** One request, retried once; answers are checked before they are trusted. */
  async #embed(input: string[], signal?: AbortSignal): Promise<number[][]> {
    let last: EmbedderError | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.#breaker.isOpen) {
        throw new EmbedderError(
          `no more embedding calls to ${this.model} after ${this.#breaker.failures} failures in a row (last: ${last?.message ?? 'see above'})`,
          'CIRCUIT_OPEN',
        );
      }
      try {
        this.#calls++;
        const vectors = this.#check(await this.request(input, signal), input.length);
        this.#breaker.succeeded();
        return vectors;
      } catch (error) {
        last = error instanceof EmbedderError ? error : await this.classify(error, signal);
        if (FINAL.has(last.code)) throw last;
        this.#breaker.failed();
      }
    }
    throw last!;
  }

  #check(embeddings: unknown, expected: number): number[][] {
    if (!Array.isArray(embeddings) || embeddings.length !== expected) {
      throw new EmbedderError(
        `the model answered ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${expected} inputs`,
        'INVALID_RESPONSE',
      );
    }
    for (const vector of embeddings as unknown[]) {
      if (!Array.isArray(vector) || vector.length === 0 || (this.#dimension > 0 && vector.length !== this.#dimension)) {
        throw new EmbedderError(
          `the model answered a vector of ${Array.isArray(vector) ? vector.length : 'no'} dimensions, expected ${this.#dimension || 'some'}`,
          'INVALID_RESPONSE',
        );
      }
      if (!vector.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw new EmbedderError('the model answered a vector with non-numbers', 'INVALID_RESPONSE');
    }
    return embeddings as number[][];
  }
}

/**
 * The failures that read the same whatever the server's API: aborted, too
 * slow, an HTTP error, an unusable answer, a connection that failed after
 * it was made. `serverName` says what kind of server is at `host` ("the
 * Ollama server").
 */
export function commonEmbedderError(
  failure: ServerFailure,
  model: string,
  host: string,
  serverName: string,
): EmbedderError {
  switch (failure.kind) {
    case 'aborted':
      return new EmbedderError(failure.message, 'ABORTED');
    case 'timeout':
      return new EmbedderError(`the embedding model ${model} at ${host} did not answer in time`, 'TIMEOUT');
    case 'http':
      return new EmbedderError(
        `the embedding request to ${host} failed: HTTP ${failure.status ?? '?'}: ${failure.message}`.trim(),
        'SERVER_ERROR',
      );
    case 'invalid-response':
      return new EmbedderError(
        `the embedding model ${model} at ${host} gave an unusable answer: ${failure.message}`,
        'INVALID_RESPONSE',
      );
    case 'unreachable':
      return new EmbedderError(
        `cannot reach ${serverName} at ${host} for embeddings: ${failure.message}`,
        'UNREACHABLE',
      );
  }
}
