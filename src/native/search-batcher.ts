/**
 * SearchBatcher: concurrent searches of one index, answered by as few FAISS
 * calls as possible. A server that answers many agents receives their vector
 * queries one at a time, and FAISS answers a batch of queries far faster than
 * the same queries one by one (one matrix product on the CPU, one set of
 * kernel launches on a GPU, where calls also run one at a time).
 *
 * A query goes to FAISS at once when the batcher has no call running, so a
 * lone query waits for nothing. Queries that arrive while a call runs are
 * queued, and when it ends the queue goes as one call (up to `maxBatch` rows):
 * batches grow with the load. Only requests with the same k and parameters
 * (the same set of allowed ids included) share a call, so each caller gets
 * what its own call would have returned.
 */
import type { KnnResult, SearchParams } from './faiss-index.js';
import { MAX_K, MAX_RESULTS, checkFinite, checkInteger, checkVectors, toAllowedIds } from './validate.js';

export interface SearchBatcherOptions {
  /** The most query rows one FAISS call takes. Default 1,024. */
  maxBatch?: number;
}

/** What the batcher has done: FAISS calls made and query rows answered. */
export interface SearchBatcherStats {
  calls: number;
  queries: number;
  largestBatch: number;
}

interface Request {
  queries: Float32Array;
  rows: number;
  k: number;
  params: SearchParams;
  /** The request's own copy of `params.allowed`, ascending. */
  allowed: BigInt64Array | undefined;
  /** Requests with the same key, and the same allowed ids, share a call. */
  key: string;
  resolve: (result: KnnResult) => void;
  reject: (error: unknown) => void;
}

const DEFAULT_MAX_BATCH = 1024;

/** What a batcher searches: a FaissIndex, or anything that routes to one at the time of the call. */
export interface Searchable {
  readonly d: number;
  search(queries: Float32Array, k: number, params?: SearchParams): Promise<KnnResult>;
}

export class SearchBatcher {
  readonly #index: Searchable;
  readonly #maxBatch: number;
  #queue: Request[] = [];
  #running = false;
  readonly #stats: SearchBatcherStats = { calls: 0, queries: 0, largestBatch: 0 };

  constructor(index: Searchable, options: SearchBatcherOptions = {}) {
    this.#index = index;
    this.#maxBatch = checkInteger('maxBatch', options.maxBatch ?? DEFAULT_MAX_BATCH, 1, MAX_RESULTS);
  }

  get stats(): SearchBatcherStats {
    return { ...this.#stats };
  }

  /**
   * As FaissIndex.search. The rows are checked here (shape and finite
   * values), so that one caller's bad row fails that caller only, and copied,
   * so the caller may reuse its array at once.
   */
  search(queries: Float32Array, k: number, params: SearchParams = {}): Promise<KnnResult> {
    const rows = checkVectors('queries', queries, this.#index.d);
    checkInteger('k', k, 1, MAX_K);
    checkFinite('queries', queries, this.#index.d);
    let allowed = params?.allowed === undefined ? undefined : toAllowedIds(params.allowed);
    if (allowed !== undefined && allowed === params.allowed) allowed = allowed.slice();
    const key = JSON.stringify([k, params?.efSearch, params?.nprobe, allowed?.length ?? -1]);
    return new Promise<KnnResult>((resolve, reject) => {
      this.#queue.push({ queries: queries.slice(), rows, k, params, allowed, key, resolve, reject });
      this.#next();
    });
  }

  /** Sends the oldest request and every queued one like it, when no call is running. */
  #next(): void {
    if (this.#running || this.#queue.length === 0) return;
    const first = this.#queue[0]!;
    // The whole batch's results must fit in what one search may return.
    const limit = Math.max(1, Math.min(this.#maxBatch, Math.floor(MAX_RESULTS / first.k)));
    const batch: Request[] = [];
    const rest: Request[] = [];
    let rows = 0;
    for (const request of this.#queue) {
      if (
        request.key === first.key &&
        sameIds(request.allowed, first.allowed) &&
        (batch.length === 0 || rows + request.rows <= limit)
      ) {
        batch.push(request);
        rows += request.rows;
      } else {
        rest.push(request);
      }
    }
    this.#queue = rest;
    this.#running = true;
    void this.#send(batch, rows).finally(() => {
      this.#running = false;
      this.#next();
    });
  }

  async #send(batch: Request[], rows: number): Promise<void> {
    const { k, allowed } = batch[0]!;
    const params: SearchParams = allowed === undefined ? batch[0]!.params : { ...batch[0]!.params, allowed };
    const d = this.#index.d;
    let queries = batch[0]!.queries;
    if (batch.length > 1) {
      queries = new Float32Array(rows * d);
      let at = 0;
      for (const request of batch) {
        queries.set(request.queries, at * d);
        at += request.rows;
      }
    }
    this.#stats.calls++;
    let result: KnnResult;
    try {
      result = await this.#index.search(queries, k, params);
    } catch (error) {
      for (const request of batch) request.reject(error);
      return;
    }
    this.#stats.queries += rows;
    this.#stats.largestBatch = Math.max(this.#stats.largestBatch, rows);
    if (batch.length === 1) {
      batch[0]!.resolve(result);
      return;
    }
    let at = 0;
    for (const request of batch) {
      const start = at * k;
      const end = (at + request.rows) * k;
      request.resolve({
        nq: request.rows,
        k,
        distances: result.distances.slice(start, end),
        labels: result.labels.slice(start, end),
      });
      at += request.rows;
    }
  }
}

/** Whether two requests allow the same ids (both none, or equal contents). */
function sameIds(a: BigInt64Array | undefined, b: BigInt64Array | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}
