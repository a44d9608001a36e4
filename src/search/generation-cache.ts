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

  /** Puts `value` in place of `held`, when `held` is still the answer for `key` in this generation. */
  replace(generation: number, key: string, held: V, value: V): void {
    if (generation === this.#generation && this.#values.get(key) === held) this.#values.set(key, value);
  }

  /** Forgets one answer (one that failed). */
  forget(key: string, value: V): void {
    if (this.#values.get(key) === value) this.#values.delete(key);
  }
}

/**
 * The same for answers a store gives asynchronously: concurrent searches
 * share one read, a read that fails is not kept, and an answer once read is
 * kept as itself (a number, not the promise that brought it: a long-lived
 * searcher holds tens of thousands).
 */
export class AsyncGenerationCache<V> {
  readonly #cache: GenerationCache<V | Promise<V>>;

  constructor(limit: number) {
    this.#cache = new GenerationCache(limit);
  }

  has(generation: number, key: string): boolean {
    return this.#cache.has(generation, key);
  }

  get(generation: number, key: string, compute: () => Promise<V>): Promise<V> {
    const held = this.#cache.get(generation, key, compute);
    if (!(held instanceof Promise)) return Promise.resolve(held);
    held.then(
      (value) => this.#cache.replace(generation, key, held, value),
      () => this.#cache.forget(key, held),
    );
    return held;
  }
}

/** Answers a searcher keeps for one generation before it starts afresh. */
export const MAX_CACHED_TERMS = 50_000;
