/**
 * Embeddings from an Ollama server with the official client: `/api/embed`
 * with batched `input` arrays. The dimension is detected from the model on
 * `init` and recorded by the store. Inputs longer than the model's context
 * are cut (here, and by the server's `truncate`) rather than failing.
 * Timeouts and the circuit breaker work as in analysis; unlike analysis
 * there is no fallback: vectors from two embedders must never be mixed, so
 * a failure stops the run with an EmbedderError.
 */
import { CircuitBreaker } from '../analysis/llm/circuit-breaker.js';
import { describeOllamaFailure, isModelMissing, ollamaClient } from '../analysis/llm/client.js';
import { resolveOllamaHost } from '../analysis/llm/config.js';
import {
  EmbedderError,
  normalizeRows,
  type Embedder,
  type EmbedderInitOptions,
  type QueryEmbeddingOptions,
} from './embedder.js';

/** What an OllamaEmbedder does when its options leave something out. */
export const OLLAMA_EMBEDDER_DEFAULTS = {
  model: 'nomic-embed-text',
  batchSize: 32,
  timeoutMs: 120_000,
  contextTokens: 2_048,
  failureThreshold: 3,
} as const;

export const DEFAULT_EMBEDDING_MODEL = OLLAMA_EMBEDDER_DEFAULTS.model;

export interface OllamaEmbedderOptions {
  /** Default http://127.0.0.1:11434. */
  host?: string;
  /** Default nomic-embed-text. */
  model?: string;
  /** Documents per request. Default 32. */
  batchSize?: number;
  /** Per request, reading the answer included. Default 120 s. */
  timeoutMs?: number;
  /** Bytes one answer may have. Default 64 MiB. */
  maxResponseBytes?: number;
  /** The model's context in tokens (sent as num_ctx); inputs are cut to fit. Default 2,048. */
  contextTokens?: number;
  /** Failures in a row before no more calls are made. Default 3. */
  failureThreshold?: number;
  /** Prefixes some models expect (nomic-embed-text: "search_document: ", "search_query: "). */
  documentPrefix?: string;
  queryPrefix?: string;
}

/** Conservative: code averages about 3.5 characters a token. */
const CHARS_PER_TOKEN = 3;

export class OllamaEmbedder implements Embedder {
  readonly model: string;
  readonly batchSize: number;
  readonly #host: string;
  readonly #contextTokens: number;
  readonly #maxChars: number;
  readonly #breaker: CircuitBreaker;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number | undefined;
  readonly #documentPrefix: string;
  readonly #queryPrefix: string;
  #dimension = 0;
  #calls = 0;

  constructor(options: OllamaEmbedderOptions = {}) {
    const defaults = OLLAMA_EMBEDDER_DEFAULTS;
    this.model = options.model ?? defaults.model;
    this.batchSize = options.batchSize ?? defaults.batchSize;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1)
      throw new RangeError(`batchSize must be a positive integer, not ${options.batchSize}`);
    this.#contextTokens = options.contextTokens ?? defaults.contextTokens;
    this.#maxChars = this.#contextTokens * CHARS_PER_TOKEN;
    this.#breaker = new CircuitBreaker(options.failureThreshold ?? defaults.failureThreshold);
    this.#timeoutMs = options.timeoutMs ?? defaults.timeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes;
    const nomic = /nomic-embed/.test(this.model);
    this.#documentPrefix = options.documentPrefix ?? (nomic ? 'search_document: ' : '');
    this.#queryPrefix = options.queryPrefix ?? (nomic ? 'search_query: ' : '');
    this.#host = resolveOllamaHost(options.host);
  }

  get id(): string {
    return `ollama:${this.model}`;
  }

  /** The server's URL, as resolved from the options. */
  get host(): string {
    return this.#host;
  }

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
        const response = await ollamaClient(this.#host, {
          timeoutMs: this.#timeoutMs,
          signal,
          maxResponseBytes: this.#maxResponseBytes,
        }).embed({ model: this.model, input, truncate: true, options: { num_ctx: this.#contextTokens } });
        const vectors = this.#check(response.embeddings, input.length);
        this.#breaker.succeeded();
        return vectors;
      } catch (error) {
        last = classify(error, signal, this.model, this.#host);
        if (last.code === 'ABORTED' || last.code === 'MODEL_MISSING') throw last;
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

/** Network errors that mean nothing listens at the address. */
const NO_LISTENER = /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EADDRNOTAVAIL)$/;

/** What to do instead of an Ollama embedder, for either failure. */
const BUILTIN_INSTEAD = 'or index with the built-in embedder instead (oc-vector-index --rebuild --embedder builtin)';

/**
 * The failure as a message that says which it was (no server at the URL, or
 * a server without the model), names the URL, and says what to do.
 */
function classify(error: unknown, signal: AbortSignal | undefined, model: string, host: string): EmbedderError {
  if (error instanceof EmbedderError) return error;
  const failure = describeOllamaFailure(error, signal);
  if (isModelMissing(failure))
    return new EmbedderError(
      `the Ollama server at ${host} has no model ${model}: run \`ollama pull ${model}\` there, ${BUILTIN_INSTEAD}`,
      'MODEL_MISSING',
    );
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
      // Refused or no such host: nothing listens there. Anything else (a hang-up): something does, and failed.
      return new EmbedderError(
        NO_LISTENER.test(failure.message)
          ? `no Ollama server answers at ${host} (${failure.message}): start it with \`ollama serve\`, or give the right address (--ollama-host, OLLAMA_HOST), ${BUILTIN_INSTEAD}`
          : `cannot reach the Ollama server at ${host} for embeddings: ${failure.message}`,
        'UNREACHABLE',
      );
  }
}
