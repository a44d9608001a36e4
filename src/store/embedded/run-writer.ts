/**
 * An indexing run's writes into the embedded store (../writes.ts), for its EmbeddedStoreRun
 * (store-run.ts): each batch of files in one SQLite transaction, with the embedding cache, and
 * the index moved to the run's generation by its first change.
 */
import type { IndexStore } from './index-store.js';
import type { FileWrite, WrittenFile } from '../writes.js';

export class EmbeddedWriter {
  readonly #store: IndexStore;
  readonly #rootId: number;
  readonly #generation: number;
  readonly #embedder: string;
  #moved = false;

  /** Documents whose vectors were lost with the FAISS file (VectorIndex.lostVectors): embedded again though kept. */
  readonly #lost: ReadonlySet<string>;

  /** Writes into the repository `rootId`, stamping rows with `generation` (one past the store's). */
  constructor(store: IndexStore, rootId: number, generation: number, embedder: string, lost: ReadonlySet<string>) {
    this.#store = store;
    this.#rootId = rootId;
    this.#generation = generation;
    this.#embedder = embedder;
    this.#lost = lost;
  }

  /** The hashes of the documents the file has that keep their vectors. */
  elementHashes(fileId: number): string[] {
    return this.#store
      .elementsOfFile(fileId)
      .map((element) => element.documentHash)
      .filter((hash) => !this.#lost.has(hash));
  }

  async files() {
    return this.#store.files(this.#rootId);
  }

  async write(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    const store = this.#store;
    return store.transaction(() =>
      writes.map((w) => {
        if (w.kind === 'touch') {
          store.touchFile(w.row.id, w.size, w.mtimeMs);
          return { added: 0, removed: 0, kept: 0 };
        }
        this.#moveGeneration();
        const written = store.writeFile(this.#rootId, w.update, w.documents, this.#generation, {
          lineBytes: w.lineBytes,
          occurrences: w.occurrences,
        });
        // The vectors of the documents the file did not have, and of those it kept whose vectors were lost.
        for (const [hash, vector] of w.vectors) store.putEmbedding(this.#embedder, hash, vector);
        return { added: written.added.length, removed: written.removed.length, kept: written.kept };
      }),
    );
  }

  async remove(fileIds: readonly number[]): Promise<number[]> {
    if (fileIds.length === 0) return [];
    return this.#store.transaction(() => {
      this.#moveGeneration();
      return fileIds.map((id) => this.#store.deleteFile(id, this.#generation).length);
    });
  }

  /** The first change of a run moves the index to the run's generation (in the change's transaction). */
  #moveGeneration(): void {
    if (this.#moved) return;
    this.#store.meta.generation = this.#generation;
    this.#moved = true;
  }
}
