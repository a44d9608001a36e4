/**
 * A run's lookups of stored vectors by document hash, merged. The indexer asks once per file,
 * and a run's connection answers one query at a time, each answer read in a turn of the event
 * loop: a first load of 125 files queued 250 lookups on it, and its batches' statements waited
 * behind them, a turn each, while the indexer built the next batch (docs/history/postgres.md). Here the
 * hashes asked while a lookup is under way wait for it and go together in the next one.
 */
export type ReadVectors = (hashes: readonly string[]) => Promise<Map<string, Float32Array>>;

interface Gathering {
  hashes: Set<string>;
  answer: Promise<Map<string, Float32Array>>;
}

export class MergedLookups {
  readonly #read: ReadVectors;
  /** The lookup gathering hashes: it is sent once the one before has its answer. */
  #next: Gathering | undefined;
  #before: Promise<unknown> = Promise.resolve();

  constructor(read: ReadVectors) {
    this.#read = read;
  }

  /** The stored vectors of some documents, by hash (those none holds are absent). */
  async find(hashes: readonly string[]): Promise<Map<string, Float32Array>> {
    let gathering = this.#next;
    if (!gathering) {
      const hashes = new Set<string>();
      const answer = this.#before.then(() => {
        // From here, hashes asked go to the next lookup.
        if (this.#next === gathering) this.#next = undefined;
        return this.#read([...hashes]);
      });
      this.#before = answer.catch(() => {});
      this.#next = gathering = { hashes, answer };
    }
    for (const hash of hashes) gathering.hashes.add(hash);
    const all = await gathering.answer;
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const vector = all.get(hash);
      if (vector) found.set(hash, vector);
    }
    return found;
  }
}
