/**
 * An indexing run into the embedded index (../store.ts's StoreRun): under the write lock, each
 * batch of files in one SQLite transaction (run-writer.ts's EmbeddedWriter), and the FAISS file checkpointed
 * when one is due. A rebuild, and a repository new to an index of others, is one transaction
 * until the run commits: readers keep the old index meanwhile, and a failed run leaves it as
 * it was (the first run of an index still commits batch by batch, so that a killed one resumes).
 */
import { defaultRepositoryName } from '../repository-name.js';
import type { AnalysisCache } from '../../analysis/llm/cache.js';
import type { EmbedderRecord, FileRow, LastRun, Repository } from '../rows.js';
import type { IndexTotals, StoreRun, WriterClaim } from '../store.js';
import type { FileWrite, WrittenFile } from '../writes.js';
import { StoreError } from '../errors.js';
import { prepareDirectory } from './database.js';
import { IndexStore } from './index-store.js';
import { WriteLock } from './lock.js';
import { EmbeddedWriter } from './run-writer.js';
import type { EmbeddedStoreOptions } from './search-store.js';
import { FaissError } from '../../native/errors.js';
import { VectorIndex, type VectorIndexEvent } from './vector-file.js';

export class EmbeddedStoreRun implements StoreRun {
  readonly #store: IndexStore;
  readonly #lock: WriteLock;
  readonly #claim: WriterClaim;
  readonly #options: EmbeddedStoreOptions;
  readonly location: string;
  #embedder: EmbedderRecord | undefined;
  #rootId: number | undefined;
  #writer: EmbeddedWriter | undefined;

  private constructor(
    store: IndexStore,
    lock: WriteLock,
    claim: WriterClaim,
    location: string,
    options: EmbeddedStoreOptions,
  ) {
    this.#store = store;
    this.#lock = lock;
    this.#claim = claim;
    this.location = location;
    this.#options = options;
  }

  static async begin(indexDir: string, claim: WriterClaim, options: EmbeddedStoreOptions): Promise<EmbeddedStoreRun> {
    prepareDirectory(indexDir);
    const lock = await WriteLock.acquire(indexDir, {
      waitMs: claim.waitMs,
      ...(claim.signal ? { signal: claim.signal } : {}),
    });
    try {
      const store = IndexStore.open(indexDir);
      try {
        // An index moved or copied with its repository keeps what it holds: its roots follow it (relocation.ts).
        const moved = store.settleLocation();
        if (moved) options.onEvent?.({ type: 'index-moved', ...moved });
        store.repositories.noteOutside(options.onEvent);
      } catch (error) {
        store.close();
        throw error;
      }
      return new EmbeddedStoreRun(store, lock, claim, indexDir, options);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  get embedder(): EmbedderRecord | undefined {
    return this.#store.embedder;
  }

  async otherRepositories(): Promise<string[]> {
    const own = this.#ownRepository();
    return this.#store.repositories
      .all()
      .filter((repository) => repository.id !== own?.id)
      .map((repository) => repository.name);
  }

  rebuildRefused(others: readonly string[], recorded: EmbedderRecord, next: EmbedderRecord): StoreError {
    return new StoreError(
      `the index holds other repositories (${others.slice(0, 5).join(', ')}${others.length > 5 ? ', …' : ''}) embedded with ${describe(recorded, next)}: ` +
        `a rebuild with ${describe(next, recorded)} would drop them; index into a new --db, or drop them first (--drop --repo <name>)`,
      'EMBEDDER_MISMATCH',
    );
  }

  async claimEmbedder(embedder: EmbedderRecord, host: string | undefined, rebuild: boolean): Promise<void> {
    const store = this.#store;
    if (rebuild) {
      const others = await this.otherRepositories();
      // One transaction until the run completes: readers keep the old index meanwhile, and a failed rebuild leaves it as it was.
      store.beginSpan();
      // Among other repositories, a rebuild starts this one afresh and leaves theirs as they are.
      const own = others.length > 0 ? this.#ownRepository() : undefined;
      if (own) store.dropRepository(own, store.generation);
      else if (others.length === 0) store.reset(embedder);
    } else store.claimEmbedder(embedder);
    // Where the embedder's server is, for searches that name none.
    if (store.meta.embedderHost !== host) store.meta.embedderHost = host;
    this.#embedder = embedder;
  }

  async startWriting(): Promise<void> {
    const store = this.#store;
    const embedder = this.#claimed();
    // A repository new to an index of others is written in one transaction: searches see it whole or not
    // at all, never half-indexed or empty, and a killed run leaves the index as it was (a run that
    // starts an index keeps committing batch by batch, so that a killed one resumes where it stopped).
    if (!this.#ownRepository() && store.repositories.all().length > 0 && !store.inTransaction) store.beginSpan();
    const { root, repo } = this.#claim;
    const repository = store.transaction(() => store.repositories.ensure(root, repo, defaultRepositoryName(root)));
    const rootId = (this.#rootId = repository.id);
    const lost = await VectorIndex.lostVectors(store, embedder, rootId);
    const repositories = lost.forgotten.size > 0 ? store.repositories.all() : [];
    for (const [otherId, elements] of lost.forgotten) {
      const other = repositories.find((repository) => repository.id === otherId);
      if (other)
        this.#options.onEvent?.({
          type: 'repository-vectors-lost',
          repository: other.name,
          root: other.root,
          elements,
        });
    }
    this.#writer = new EmbeddedWriter(store, rootId, store.generation + 1, embedder.id, lost.hashes);
  }

  files(): Promise<Map<string, FileRow>> {
    return this.#writing().files();
  }

  elementHashes(fileId: number): string[] {
    return this.#writing().elementHashes(fileId);
  }

  embeddings(hashes: readonly string[]): Map<string, Float32Array> {
    return cachedEmbeddings(this.#store, this.#claimed().id, hashes);
  }

  analysisCache(): AnalysisCache {
    return this.#store.analysisCache();
  }

  write(writes: readonly FileWrite[]): Promise<WrittenFile[]> {
    return this.#writing().write(writes);
  }

  remove(fileIds: readonly number[]): Promise<number[]> {
    return this.#writing().remove(fileIds);
  }

  /** The FAISS file: loaded, brought level and rewritten only when a checkpoint is due. */
  async finish(wrote: boolean): Promise<IndexTotals> {
    const store = this.#store;
    const vectorOptions = this.#options.vectorIndex ?? {};
    let written = false;
    if (VectorIndex.checkpointDue(store, vectorOptions)) {
      const record = this.#claimed();
      const onVectorEvent = (event: VectorIndexEvent) => this.#options.onEvent?.(event);
      try {
        const opened = await VectorIndex.open(store, record, vectorOptions, onVectorEvent);
        const checkpoint = await opened.checkpoint(store, record, onVectorEvent);
        checkpoint.close();
        written = true;
      } catch (error) {
        // Elements whose vectors are nowhere (a database edited by hand, a file damaged without its stat
        // showing it): their files are marked for the next run, which writes the file. This run's writes stand.
        if (!(error instanceof FaissError && error.code === 'CORRUPT_INDEX')) throw error;
        onVectorEvent({ type: 'index-not-written', reason: error.message });
      }
    }
    if (wrote) store.pruneEmbeddings();
    // The vectors a checkpoint dropped from the database (vector-file.ts) leave pages free.
    if (written) store.compact();
    return {
      elements: store.elementCount,
      index: { description: store.meta.indexDescription, vectors: store.elementCount, written },
    };
  }

  /** What the run committed batch by batch stays, with the FAISS file brought level with it. */
  async abandon(wrote: boolean): Promise<void> {
    await this.finish(wrote);
  }

  async commit(end: { commit: string | undefined; at: number; lastRun: LastRun }): Promise<number> {
    const store = this.#store;
    const generation = store.generation;
    // For `--status`: when the index and this repository were last brought up to date, and with which models.
    store.repositories.markIndexed(this.#rootId!, end.commit, end.at);
    store.meta.lastRun = end.lastRun;
    if (store.inTransaction) {
      store.commitSpan();
      VectorIndex.removeUnusedFiles(store);
      store.compact();
    }
    return generation;
  }

  async close(): Promise<void> {
    try {
      this.#store.rollbackSpan();
      this.#store.close();
    } finally {
      this.#lock.release();
    }
  }

  #claimed(): EmbedderRecord {
    if (!this.#embedder) throw new StoreError('the run has not claimed its embedder', 'CLOSED');
    return this.#embedder;
  }

  #writing(): EmbeddedWriter {
    if (!this.#writer) throw new StoreError('the run has not started writing', 'CLOSED');
    return this.#writer;
  }

  /** The repository this run indexes, when the index holds it already: by the name asked for, else by its root. */
  #ownRepository(): Repository | undefined {
    const { repo, root } = this.#claim;
    return repo !== undefined ? this.#store.repositories.byName(repo) : this.#store.repositories.byRoot(root);
  }
}

/** An embedder for a message: its id, with its dimension where the other has the same id. */
function describe(embedder: EmbedderRecord, other: EmbedderRecord): string {
  return embedder.id === other.id ? `${embedder.id} (${embedder.dimension} dimensions)` : embedder.id;
}

/** The embedding cache's vectors of some document hashes (the others are absent). */
function cachedEmbeddings(store: IndexStore, embedder: string, hashes: readonly string[]): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  for (const hash of hashes) {
    const vector = store.getEmbedding(embedder, hash);
    if (vector) out.set(hash, vector);
  }
  return out;
}
