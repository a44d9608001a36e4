/**
 * Whether a PostgreSQL run's transaction is open, and the reads made before it is (run-writer.ts).
 * The run's one connection answers both: a read outside the transaction is a read-only
 * transaction of its own (inOwnTransaction says why), and its BEGIN and COMMIT must not enclose
 * the run's BEGIN and first statements, or the read's COMMIT would end the run's transaction
 * and leave its writes to commit one by one. So those reads and the opening take turns.
 */
import { inOwnTransaction } from './run-lease.js';
import type { Queryable } from './serial.js';
import type { WritePipeline } from './write-pipeline.js';

export class WriteTransaction {
  readonly #client: Queryable;
  readonly #pipeline: WritePipeline;
  #open = false;
  #opening: Promise<void> | undefined;
  #turns: Promise<unknown> = Promise.resolve();

  constructor(client: Queryable, pipeline: WritePipeline) {
    this.#client = client;
    this.#pipeline = pipeline;
  }

  /** Whether the run's transaction is open (from the moment its BEGIN is asked). */
  get open(): boolean {
    return this.#open;
  }

  /**
   * Opens the transaction, then runs `first` in it; later calls wait for that, and return. Only
   * the BEGIN takes a turn: a read asked meanwhile goes into the transaction, after the BEGIN,
   * and `first` may wait for it.
   */
  begin(first: () => Promise<void>): Promise<void> {
    this.#opening ??= (async () => {
      await this.#inTurn(async () => {
        // Set first: whatever is asked from here on goes after the BEGIN, into the transaction.
        this.#open = true;
        await this.#client.query('BEGIN');
      });
      await first();
    })();
    return this.#opening;
  }

  /** The transaction ended (committed). */
  ended(): void {
    this.#open = false;
    this.#opening = undefined;
  }

  /** Reads in the run's transaction, after the batches queued, else in a read-only one of its own. */
  async read<T>(work: () => Promise<T>): Promise<T> {
    if (!this.#open)
      return this.#inTurn(async () =>
        this.#open ? this.read(work) : inOwnTransaction(this.#client, work, 'BEGIN READ ONLY'),
      );
    await this.#pipeline.settled();
    return work();
  }

  #inTurn<T>(work: () => Promise<T>): Promise<T> {
    const done = this.#turns.then(work);
    this.#turns = done.catch(() => {});
    return done;
  }
}
