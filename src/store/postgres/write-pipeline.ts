/**
 * A run's batches written while the next is built. Building a batch's statements (its words as
 * FTS5 would index them, its postings, its vectors as text, its files deflated) is the client's
 * CPU, and running them the server's; done in turns, each waited while the other worked
 * (docs/history/postgres.md). Here a batch's statements are built on the indexer's thread, then queued
 * to run in order on the run's connection after those of the batches before, and write()
 * returns: the indexer builds the next batch while the server runs this one.
 *
 * So an error of a queued statement surfaces at the next write, read or commit (check and
 * settled), and no statement queued after it runs: the run's transaction is lost anyway.
 */

/** One queued piece of a batch: a statement, or a few that depend on each other's answers. */
export type WriteStep = () => Promise<void>;

/** Lets the event loop turn: the answer to a queued statement is read, and the next one sent. */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class WritePipeline {
  #tail: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;
  #stopped = false;
  /** The vectors of queued batches not yet written, by document hash: a lookup meanwhile finds them here. */
  readonly #vectors = new Set<ReadonlyMap<string, Float32Array>>();

  /** Throws the error a queued step met, if one did. */
  check(): void {
    if (this.#failure) throw this.#failure.error;
  }

  /** Whether a queued step failed: the run's transaction is lost. */
  get failed(): boolean {
    return this.#failure !== undefined;
  }

  /** Queues a batch's steps after those queued before; `vectors` are found by vector() until they have run. */
  queue(steps: readonly WriteStep[], vectors?: ReadonlyMap<string, Float32Array>): void {
    if (vectors) this.#vectors.add(vectors);
    this.#tail = this.#tail.then(async () => {
      try {
        for (const step of steps) {
          if (this.#failure || this.#stopped) return;
          await step();
        }
      } catch (error) {
        this.#failure ??= { error };
      } finally {
        if (vectors) this.#vectors.delete(vectors);
      }
    });
  }

  /** Waits for every queued step; throws the first error one met. */
  async settled(): Promise<void> {
    await this.#tail;
    this.check();
  }

  /**
   * Starts no step not started yet, and waits for those running: before a rollback, after which
   * a statement would run outside the transaction, on its own.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#tail;
  }

  /** The vector of a document in a queued batch, by its hash. */
  vector(hash: string): Float32Array | undefined {
    for (const vectors of this.#vectors) {
      const vector = vectors.get(hash);
      if (vector) return vector;
    }
    return undefined;
  }
}
