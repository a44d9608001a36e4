/**
 * A run's writes held until its transaction (run-writer.ts's PostgresWriter). On a server that
 * serves one transaction at a time (PGlite: one backend for every connection), the writes are
 * held until the commit (up to HELD_ELEMENTS_MAX elements), then written in the run's one
 * transaction: none is open while files are read, analysed and embedded, so the server answers
 * searches and other indexers meanwhile.
 */

/**
 * Elements a run holds before it opens its transaction on a server of one backend (each with
 * its vector, text and words: a bound on the memory held); past them, the transaction stays
 * open to the commit. A PostgreSQL server holds none: there an open transaction stops no other
 * connection, and writing each batch as it comes overlaps the writes with the reading and
 * embedding of the next, which holding them would give up (docs/postgres.md, "The figures
 * behind the constants").
 */
const HELD_ELEMENTS_MAX = 20_000;

/** A write held until the run's transaction (it runs in it, in order). */
export type HeldStep = () => Promise<void>;

export class HeldWrites {
  #steps: HeldStep[] = [];
  #elements = 0;
  /** How many elements the run holds before it opens its transaction (0 on a PostgreSQL server). */
  readonly #max: number;
  /** The vectors of the held writes, by document hash: a later batch reuses them as it would from the store. */
  #vectors = new Map<string, Float32Array>();

  /** `sharedBackend`: the server serves one transaction at a time (PGlite); `max` there, HELD_ELEMENTS_MAX unless given. */
  constructor(sharedBackend: boolean, max = HELD_ELEMENTS_MAX) {
    this.#max = sharedBackend ? max : 0;
  }

  /** Holds a write of `elements` elements; true when the run holds as many as it may (its transaction must open). */
  hold(step: HeldStep, elements: number): boolean {
    this.#steps.push(step);
    this.#elements += elements;
    return this.#elements >= this.#max;
  }

  /** Keeps the vectors of a held write, for later batches to reuse. */
  keepVectors(vectors: ReadonlyMap<string, Float32Array>): void {
    for (const [hash, vector] of vectors) this.#vectors.set(hash, vector);
  }

  /** The vector of a held write's document, by its hash. */
  vector(hash: string): Float32Array | undefined {
    return this.#vectors.get(hash);
  }

  /**
   * Makes the held writes, in order (in the run's transaction, open already); their vectors are
   * lent until the last one is made, as a write reads them back.
   */
  async replay(): Promise<void> {
    for (const step of this.#steps.splice(0)) await step();
    this.#elements = 0;
    this.#vectors.clear();
  }
}
