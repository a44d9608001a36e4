/**
 * What the embedders that ask a server share (Ollama's API, an
 * OpenAI-compatible one): batches, inputs cut to the model's context, the
 * prefixes some models expect, one retry, a circuit breaker, and answers
 * read (a vector of numbers per input) and checked (vector/check.ts: a
 * dimension FAISS can take and the one expected, finite, not all zero)
 * before they are trusted, the probe that learns the dimension included. A
 * subclass says how to ask its server and how to read its failures. There
 * is no fallback: vectors from two embedders must never be mixed, so a
 * failure stops the run with an EmbedderError.
 */
import { CircuitBreaker } from '../models/circuit-breaker.js';
import type { ServerFailure } from '../models/http.js';
import { checkDimension, checkVectors, embedderName, type ExpectedDimension } from './check.js';
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

export { BUILTIN_INSTEAD } from './embedder.js';

/** Conservative: code averages about 3.5 characters a token. */
const CHARS_PER_TOKEN = 3;

/**
 * What servers answer (HTTP 400) for an input past the model's context, although ocvector asks
 * them to truncate: a real Ollama (v0.24) truncates by tokenizing, cutting and detokenizing, and
 * for a WordPiece model (all-MiniLM) text with accents or CJK comes back longer than it went in.
 */
const TOO_LONG = /exceeds? (?:the |its )?(?:maximum )?context length|maximum context length/i;

/** How many times a batch the server calls too long is cut in half and sent again. */
const MAX_CUTS = 6;
/** Inputs are never cut below this many characters: a server that refuses those fails the batch. */
const MIN_CUT_CHARS = 64;

/**
 * Failures a second attempt cannot mend: the next request would fail the
 * same way (a server that answers 70,000 dimensions or NaN does so again).
 */
const FINAL: ReadonlySet<string> = new Set(['ABORTED', 'MODEL_MISSING', 'UNAUTHORIZED', 'INVALID_VECTORS']);

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
  /** Where #dimension comes from, for messages: the index's record, or the first answer. */
  #dimensionFrom = '';
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
      this.#dimensionFrom = 'the index';
      return;
    }
    // The probe's answer is checked like any other: a dimension FAISS cannot take fails here, before an index records it.
    const probe = await this.#embed(['ocvector'], options.signal);
    this.#dimension = probe.length;
    this.#dimensionFrom = 'its first answer';
  }

  async embedDocuments(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array> {
    await this.init(signal ? { signal } : {});
    const out = new Float32Array(texts.length * this.#dimension);
    for (let start = 0; start < texts.length; start += this.batchSize) {
      const batch = texts.slice(start, start + this.batchSize).map((text) => this.#fit(this.#documentPrefix + text));
      out.set(await this.#embed(batch, signal), start * this.#dimension);
    }
    return normalizeRows(out, this.#dimension);
  }

  async embedQuery(text: string, options: QueryEmbeddingOptions = {}): Promise<Float32Array> {
    await this.init(options.signal ? { signal: options.signal } : {});
    return normalizeRows(await this.#embed([this.#fit(this.#queryPrefix + text)], options.signal), this.#dimension);
  }

  #fit(text: string): string {
    return text.length > this.#maxChars ? text.slice(0, this.#maxChars) : text;
  }

  /**
   * One request, retried once; the answer is read (#read) and checked
   * (vector/check.ts) before it is trusted. Returns its vectors, row-major,
   * as the server gave them (not yet normalised).
   */
  async #embed(input: string[], signal?: AbortSignal): Promise<Float32Array> {
    let last: EmbedderError | undefined;
    let cuts = 0;
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.#breaker.isOpen) {
        throw new EmbedderError(
          `no more embedding calls to ${this.model} after ${this.#breaker.failures} failures in a row (last: ${last?.message ?? 'see above'})`,
          'CIRCUIT_OPEN',
        );
      }
      try {
        this.#calls++;
        const vectors = this.#read(await this.request(input, signal), input.length);
        this.#breaker.succeeded();
        return vectors;
      } catch (error) {
        last = error instanceof EmbedderError ? error : await this.classify(error, signal);
        if (FINAL.has(last.code)) throw last;
        // Too long for the model: the server works, the inputs do not fit. Each is cut to half
        // its length (what the start of an element says is what it is about) and sent again.
        const longest = Math.max(...input.map((text) => text.length));
        if (last.code === 'INPUT_TOO_LONG' && cuts < MAX_CUTS && longest > MIN_CUT_CHARS) {
          const limit = Math.max(MIN_CUT_CHARS, Math.floor(longest / 2));
          input = input.map((text) => (text.length > limit ? text.slice(0, limit) : text));
          cuts++;
          attempt--;
          continue;
        }
        this.#breaker.failed();
      }
    }
    throw last!;
  }

  /**
   * The answer as one row-major matrix: one array of numbers per input, all
   * of one dimension (the first answer's, or the index's), checked before
   * anything is allocated for it.
   */
  #read(embeddings: unknown, count: number): Float32Array {
    if (!Array.isArray(embeddings) || embeddings.length !== count) {
      throw new EmbedderError(
        `${embedderName(this)} answered ${Array.isArray(embeddings) ? embeddings.length : 'no'} embeddings for ${count} inputs`,
        'INVALID_RESPONSE',
      );
    }
    const rows = embeddings as unknown[];
    const first = rows[0];
    if (!Array.isArray(first))
      throw new EmbedderError(`${embedderName(this)} answered an embedding that is not a vector`, 'INVALID_RESPONSE');
    const expected: ExpectedDimension | undefined =
      this.#dimension > 0 ? { dimension: this.#dimension, from: this.#dimensionFrom } : undefined;
    const dimension = checkDimension(this, first.length, expected);
    const matrix = new Float32Array(count * dimension);
    rows.forEach((vector, i) => {
      if (!Array.isArray(vector))
        throw new EmbedderError(`${embedderName(this)} answered an embedding that is not a vector`, 'INVALID_RESPONSE');
      checkDimension(this, vector.length, { dimension, from: 'the first vector of the same answer' });
      if (!vector.every((x) => typeof x === 'number'))
        throw new EmbedderError(`${embedderName(this)} answered a vector with non-numbers`, 'INVALID_RESPONSE');
      matrix.set(vector as number[], i * dimension);
    });
    // As float32: a number too large for one (1e39) is an infinity here, and caught.
    return checkVectors(this, matrix, { count, dimension, expected });
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
        failure.status === 400 && TOO_LONG.test(failure.message) ? 'INPUT_TOO_LONG' : 'SERVER_ERROR',
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
