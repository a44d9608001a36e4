/**
 * Answers about the index's terms that hold until an indexer commits: kept
 * for one index generation, and bounded, since a long-lived searcher meets
 * an open-ended vocabulary.
 */
export class GenerationCache<V> {
  readonly #limit: number;
  #generation = Number.NaN;
  #values = new Map<string, V>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  get(generation: number, key: string, compute: () => V): V {
    if (generation !== this.#generation) {
      this.#generation = generation;
      this.#values = new Map();
    }
    let value = this.#values.get(key);
    if (value === undefined) {
      // Full: start afresh rather than grow (a new answer, never one already held, makes room).
      if (this.#values.size >= this.#limit) this.#values = new Map();
      this.#values.set(key, (value = compute()));
    }
    return value;
  }

  /** Whether an answer for `key` is held for this generation. */
  has(generation: number, key: string): boolean {
    return generation === this.#generation && this.#values.has(key);
  }

  /** Forgets one answer (one that failed). */
  forget(key: string, value: V): void {
    if (this.#values.get(key) === value) this.#values.delete(key);
  }
}

/**
 * The same for answers a store gives asynchronously: concurrent searches
 * share one read, and a read that fails is not kept.
 */
export class AsyncGenerationCache<V> {
  readonly #cache: GenerationCache<Promise<V>>;

  constructor(limit: number) {
    this.#cache = new GenerationCache(limit);
  }

  has(generation: number, key: string): boolean {
    return this.#cache.has(generation, key);
  }

  get(generation: number, key: string, compute: () => Promise<V>): Promise<V> {
    const promise = this.#cache.get(generation, key, compute);
    promise.catch(() => this.#cache.forget(key, promise));
    return promise;
  }
}

/** Answers a searcher keeps for one generation before it starts afresh. */
export const MAX_CACHED_TERMS = 50_000;
