/**
 * The vector half of a search: the query embedder the index's recorded
 * embedder names (made from the caller's servers only, never from the
 * index), the query's vector, and the k-NN submitted so that BM25 runs
 * meanwhile. One failure of the embedder sends searches to lexical for a
 * while (a circuit breaker), and the reason is kept for the answer and for
 * a status report.
 */
import { CircuitBreaker } from '../models/circuit-breaker.js';
import type { Snapshot } from '../store/reads.js';
import type { EmbedderRecord } from '../store/rows.js';
import { embedderOptionsOf, type WithEmbedderOptions } from '../vector/backends.js';
import { checkVectors } from '../vector/check.js';
import { embedderFromId } from '../vector/choose.js';
import { EmbedderError, type Embedder } from '../vector/embedder.js';
import { SearchError } from './errors.js';
import type { CompiledFilters } from './filters.js';
import type { ScoredHit } from './ranking/fusion.js';
import { FILTERED_OVERFETCH } from './ranking/knobs.js';
import type { ParsedQuery } from './query.js';
import type { EmbedderStatus, SearchMode, SearchTimings } from './response.js';
import type { SearchScope } from './scopes.js';

/** After the embedder failed, searches stay lexical this long before trying it again. */
const EMBEDDER_RETRY_MS = 30_000;
/** How long a status probe waits for the embedder. */
const PROBE_TIMEOUT_MS = 5_000;

export class QueryVectors {
  readonly #options: WithEmbedderOptions;
  #record: EmbedderRecord;
  #embedder: Embedder | undefined;
  /** One failure sends searches to lexical for EMBEDDER_RETRY_MS; then the embedder is tried again. */
  #breaker = new CircuitBreaker(1, EMBEDDER_RETRY_MS);
  #problem: string | undefined;

  /** `embedder`: the caller's own, used as long as the index keeps the embedder it was opened with. */
  constructor(record: EmbedderRecord, options: WithEmbedderOptions, embedder?: Embedder) {
    this.#record = record;
    this.#options = options;
    this.#embedder = embedder;
  }

  /** The index's embedder id. */
  get id(): string {
    return this.#record.id;
  }

  /** A switch of embedder since the last search (an index rebuilt with another): the query embedder is made afresh. */
  note(record: EmbedderRecord | undefined): void {
    if (!record || (record.id === this.#record.id && record.dimension === this.#record.dimension)) return;
    this.#record = record;
    this.#embedder = undefined;
    this.#breaker = new CircuitBreaker(1, EMBEDDER_RETRY_MS);
  }

  /**
   * Embeds the query and submits the k-NN search of `candidates` vectors;
   * the hits arrive later. When the embedder is unavailable: for a hybrid
   * search, returns why there will be none; for a vector search, throws
   * SearchError EMBEDDER_UNAVAILABLE.
   */
  async start(
    snapshot: Snapshot,
    requestedMode: SearchMode,
    parsed: ParsedQuery,
    candidates: number,
    filters: CompiledFilters,
    scope: SearchScope,
    timings: SearchTimings,
  ): Promise<{ hits: Promise<ScoredHit[]> } | string> {
    const vectors = snapshot.vectors;
    if ('problem' in vectors) {
      if (requestedMode === 'vector')
        throw new SearchError(`vector search is unavailable: ${vectors.problem}`, 'VECTORS_UNAVAILABLE');
      return `${vectors.problem}; answered by lexical search`;
    }
    if (vectors.count === 0) return { hits: Promise.resolve([]) };
    const unavailable = () => {
      // Vector search alone was asked for: answering by keywords would hide that it was not done.
      if (requestedMode === 'vector')
        throw new SearchError(
          `vector search needs the embedder ${this.#record.id}, which is unavailable: ${this.#problem}`,
          'EMBEDDER_UNAVAILABLE',
        );
      return `the embedder ${this.#record.id} is unavailable (${this.#problem}); answered by lexical search`;
    };
    if (this.#breaker.isOpen) return unavailable();
    const embedStarted = performance.now();
    let query: Float32Array;
    try {
      query = await this.#embedQuery(snapshot, parsed.semanticText, scope);
    } catch {
      return unavailable();
    }
    timings.embedMs = performance.now() - embedStarted;

    const searchStarted = performance.now();
    // Filters apply after the k-NN, which knows ids only: fetch deeper when they may thin the list.
    const depth = (filters.active || parsed.kind === 'path' ? FILTERED_OVERFETCH : 1) * candidates;
    const hits = vectors.nearest(query, depth, scope.vectors).then((found) => {
      timings.vectorMs = performance.now() - searchStarted;
      return found;
    });
    // Not awaited here: BM25 runs meanwhile. A failure is seen when the hits are awaited.
    hits.catch(() => {});
    return { hits };
  }

  /**
   * Whether vector search works now, for a status report: the embedder is
   * asked to embed a probe query (unless it failed in the last
   * EMBEDDER_RETRY_MS). When it does not, hybrid searches answer lexically
   * and vector searches fail.
   */
  async status(snapshot: Snapshot, scope: SearchScope): Promise<EmbedderStatus> {
    const embedder = this.#record.id;
    if ('problem' in snapshot.vectors) return { embedder, available: false, problem: snapshot.vectors.problem };
    if (!this.#breaker.isOpen) {
      try {
        await this.#embedQuery(snapshot, 'ocvector', scope, AbortSignal.timeout(PROBE_TIMEOUT_MS));
        return { embedder, available: true };
      } catch {}
    }
    return { embedder, available: false, problem: this.#problem ?? 'unknown' };
  }

  /** The query's vector; a failure is kept as the embedder's problem, and searches stay lexical a while. */
  async #embedQuery(snapshot: Snapshot, text: string, scope: SearchScope, signal?: AbortSignal): Promise<Float32Array> {
    try {
      const embedder = await this.#queryEmbedder();
      const answer = await embedder.embedQuery(text, {
        termWeights: (terms) => scope.lexical.termWeights(scope, terms, snapshot.generation),
        ...(signal ? { signal } : {}),
      });
      // Whatever the embedder: a query vector that is not one of the index's dimension, or holds NaN, searches nothing.
      // All zeros is allowed: a query of words common to every file weighs nothing for the built-in embedder.
      const vector = checkVectors(embedder, answer, { count: 1, dimension: this.#record.dimension, allowZero: true });
      this.#breaker.succeeded();
      return vector;
    } catch (error) {
      this.#problem = signal?.aborted ? `no answer within ${PROBE_TIMEOUT_MS} ms` : (error as Error).message;
      this.#breaker.failed();
      throw error;
    }
  }

  async #queryEmbedder(): Promise<Embedder> {
    if (this.#embedder) return this.#embedder;
    // The caller's servers only (vector/choose.ts): the index says which model, never where to send the query.
    const embedder = embedderFromId(this.#record.id, embedderOptionsOf(this.#options));
    if (!embedder)
      throw new EmbedderError(
        `this version of ocvector cannot embed queries for ${this.#record.id}: run oc-vector-index to re-embed the index`,
        'UNKNOWN_EMBEDDER',
      );
    await embedder.init({ dimension: this.#record.dimension });
    this.#embedder = embedder;
    return embedder;
  }
}
