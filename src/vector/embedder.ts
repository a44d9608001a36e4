/**
 * An Embedder turns documents and queries into L2-normalised vectors, to be
 * compared by inner product (cosine). Documents and queries are separate
 * calls because good embedders treat them differently (query prefixes,
 * term weights from the corpus).
 */
import { OcvectorError } from '../errors.js';

export interface Embedder {
  /**
   * Names everything that changes the vectors (kind, model, version,
   * dimension): vectors with different ids are never mixed in one index.
   */
  readonly id: string;
  /** Known after {@link init} (an Ollama model's is detected). */
  readonly dimension: number;
  /** Embedding requests made so far (cache hits make none). */
  readonly calls: number;
  /**
   * True when vectors are computed in this process (no server round trip):
   * the Indexer then sends larger batches and keeps fewer files in flight.
   */
  readonly inProcess?: boolean;
  /**
   * True when an all-zero vector is a valid answer: a text with nothing the
   * embedder weighs (the built-in one, for a document of punctuation alone).
   * For any other embedder one is a failure, and stops the run
   * (vector/check.ts).
   */
  readonly allowsZeroVectors?: boolean;
  /**
   * The server the embedder asks (an Ollama URL, an OpenAI-compatible base
   * URL), for one that has one: the index records it, so that searches find
   * the same server again.
   */
  readonly host?: string;
  /**
   * Checks the embedder can work and learns its dimension. Idempotent. An
   * index that recorded this embedder passes its dimension, so a re-run
   * makes no request just to learn it.
   */
  init(options?: EmbedderInitOptions): Promise<void>;
  /** n documents -> one row-major n x dimension array of unit vectors. */
  embedDocuments(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array>;
  embedQuery(text: string, options?: QueryEmbeddingOptions): Promise<Float32Array>;
}

export interface EmbedderInitOptions {
  signal?: AbortSignal;
  /** The dimension an index recorded for this embedder's id. */
  dimension?: number;
}

export interface QueryEmbeddingOptions {
  signal?: AbortSignal;
  /**
   * How informative a (stemmed, lower-case) term is in the indexed corpus,
   * e.g. its inverse document frequency. Embedders that weigh terms use it.
   */
  termWeight?: (term: string) => number;
  /**
   * The same for many terms at once, answered asynchronously (a store on a
   * database server counts them in one read). Used instead of `termWeight`
   * when both are given. The Searcher passes this one alone, so an embedder
   * that weighs terms reads it.
   */
  termWeights?: (terms: readonly string[]) => Promise<ReadonlyMap<string, number>>;
}

export type EmbedderErrorCode =
  | 'UNREACHABLE'
  | 'TIMEOUT'
  | 'SERVER_ERROR'
  /**
   * The server says an input is longer than the model's context (Ollama's
   * "the input length exceeds the context length", an OpenAI-compatible
   * server's "maximum context length"): the inputs are cut shorter and sent again.
   */
  | 'INPUT_TOO_LONG'
  | 'MODEL_MISSING'
  /** The server refused the request (HTTP 401, 403): it wants an API key, or another one. */
  | 'UNAUTHORIZED'
  /** The answer cannot be read: not JSON, not the API's shape, a wrong count of vectors. */
  | 'INVALID_RESPONSE'
  /**
   * The answer was read, and its vectors cannot be indexed: a dimension FAISS
   * cannot take or other than expected (the first answer's, the index's),
   * NaN or infinity, an all-zero vector (see vector/check.ts).
   */
  | 'INVALID_VECTORS'
  | 'CIRCUIT_OPEN'
  | 'ABORTED'
  | 'NOT_INITIALIZED'
  /** The options cannot make this embedder (an OpenAI-compatible one without a base URL or a model). */
  | 'NOT_CONFIGURED'
  | 'UNKNOWN_EMBEDDER';

/** What to do instead of a remote embedder, whatever failed. */
export const BUILTIN_INSTEAD =
  'or index with the built-in embedder instead (oc-vector-index --rebuild --embedder builtin)';

export class EmbedderError extends OcvectorError<EmbedderErrorCode> {
  override name = 'EmbedderError';
}

/** Scales each row of a row-major matrix to unit length (zero rows stay zero). */
export function normalizeRows(matrix: Float32Array, dimension: number): Float32Array {
  for (let offset = 0; offset < matrix.length; offset += dimension) {
    let sum = 0;
    for (let i = offset; i < offset + dimension; i++) sum += matrix[i]! * matrix[i]!;
    if (sum === 0) continue;
    const scale = 1 / Math.sqrt(sum);
    for (let i = offset; i < offset + dimension; i++) matrix[i]! *= scale;
  }
  return matrix;
}
