/**
 * The FAISS side of an index. The file beside the database is named after
 * the generation it reflects (`vectors-g<N>.ocvx`, written atomically). It
 * may lag behind the database: the changes since its generation (elements
 * added, whose vectors the database holds; tombstones of removed vectors)
 * are replayed on open, so a run that changes one file does not rewrite a
 * large index, and a crash between the database commit and the file write
 * loses nothing. The file is rewritten (a checkpoint) when the replayed part
 * grows large, or its type no longer fits the size.
 *
 * Where each vector is kept. A model's vectors stay in the database too (its
 * embedding cache: an unchanged document is never sent to the model again),
 * and the file is derived from them. Vectors of an embedder that recomputes
 * cheaply (the built-in one) are kept once: the database holds them only
 * until a checkpoint has written them to the file, and a rebuild reads them
 * back from the index it replaces. Should that file be lost or damaged, a
 * reader cannot have those vectors (FaissError CORRUPT_INDEX: its searches
 * answer lexically, saying why), and the next indexer run embeds them again
 * (lostVectors), their element rows left as they are.
 *
 * Index type (index-plan.ts): exact (Flat, ids mapped) while small; IVF of
 * half-precision codes past a threshold. Both remove in place, so deletions
 * are exact on each.
 *
 * A file belongs to one database: the database records the name and the
 * container header (payload length and checksum) of the file it wrote, and
 * only that file is used. A file left by another database in the same
 * directory (the database deleted and indexed again, a file copied from
 * another index) is ignored and rebuilt, whatever its generation says.
 * Only regular files are opened.
 *
 * The database and the file are data like everything under the indexed
 * directory (they may have come with a clone, a tarball or a cache), and
 * FAISS's parser trusts its bytes. FAISS parses a file in this process only
 * when its stat, change time and inode included, is the one this index
 * recorded when it wrote it, which a file made elsewhere cannot match; any
 * other is parsed and checked in a child process first (a crash there is a
 * damaged file), and the next indexer run writes a file of its own.
 *
 * Searching on a GPU (`device`): the index above stays on the CPU, the one
 * that changes and is written (FAISS's GPU indexes cannot remove), and
 * searches go to a copy of it on the GPU once it holds `gpuMinVectors`
 * vectors. Vectors added since are added to the copy too; a removal makes the
 * copy again. Concurrent searches are answered together (SearchBatcher).
 */
import { join } from 'node:path';
import { FaissError } from '../../native/errors.js';
import { FaissIndex, type KnnResult, searchesAllowedIds } from '../../native/faiss-index.js';
import type { IdsInput } from '../../native/validate.js';
import { SearchBatcher, type SearchBatcherStats } from '../../native/search-batcher.js';
import { MAX_DIMENSION } from '../../native/validate.js';
import { StoreError } from './database.js';
import { GpuCopy } from './gpu-copy.js';
import type { IndexStore } from './index-store.js';
import { statIdentity } from './index-files.js';
import { nlistOf, nprobeFor, planIndex, typeChanged } from './index-plan.js';
import { readTrainingSample, TRAINING_VECTORS_PER_LIST, vectorPages } from './vector-pages.js';
import {
  fileRecord,
  listVectorFiles,
  readsWhole,
  readVectorFile,
  removeQuietly,
  type UsableFile,
  usableFile,
  vectorFileName,
} from './vector-files.js';
import type { EmbedderRecord } from '../rows.js';
import { recomputesCheaply } from '../../vector/backends.js';
import { type VectorIndexEvent, type VectorIndexOptions, withDefaults } from './vector-index-options.js';

export type { VectorIndexEvent, VectorIndexOptions } from './vector-index-options.js';
export { VECTOR_INDEX_DEFAULTS } from './vector-index-options.js';
import { isIndexableDimension } from '../../vector/check.js';

export class VectorIndex {
  /** The copy of `index` on a GPU that searches use, when the options ask for one. */
  readonly #gpu = new GpuCopy();
  readonly #batcher: SearchBatcher;
  /** The file the index was read from, when it was: where a copy of a mapped index is read again. */
  #file: UsableFile | undefined;

  private constructor(
    readonly index: FaissIndex,
    private readonly options: Required<VectorIndexOptions>,
    readonly nprobe: number | undefined,
    /** The database generation these vectors reflect. */
    public generation: number,
  ) {
    this.#batcher = new SearchBatcher({
      d: index.d,
      search: (queries, k, params) => this.#searchNow(queries, k, params?.allowed),
    });
  }

  /** What the batcher did: FAISS calls made for how many queries (concurrent searches share calls). */
  get searchStats(): SearchBatcherStats {
    return this.#batcher.stats;
  }

  get ntotal(): number {
    return this.index.ntotal;
  }

  /** Where searches run now: 'gpu' when they go to a copy on a GPU. */
  get searchDevice(): 'cpu' | 'gpu' {
    return this.#gpu.device;
  }

  /**
   * The k nearest neighbours of each query row, with this index's nprobe, on
   * the GPU copy when there is one (k past FAISS's GPU limit goes to the CPU).
   * Concurrent calls are answered by as few FAISS calls as possible.
   */
  search(queries: Float32Array, k: number, allowed?: BigInt64Array): Promise<KnnResult> {
    return this.#batcher.search(queries, k, allowed ? { allowed } : {});
  }

  /**
   * Whether a search can be kept to some ids (`allowed`, ascending), exactly
   * on a Flat index: the addon must be recent enough (FaissIndex.search).
   * Such searches run on the CPU index, which a GPU copy cannot restrict.
   */
  get restrictable(): boolean {
    return searchesAllowedIds() && this.index.kind !== 'other';
  }

  #searchNow(queries: Float32Array, k: number, allowed: IdsInput | undefined): Promise<KnnResult> {
    if (allowed) return this.index.search(queries, k, { ...(this.nprobe ? { nprobe: this.nprobe } : {}), allowed });
    return (
      this.#gpu.search(queries, k, this.nprobe) ??
      this.index.search(queries, k, this.nprobe ? { nprobe: this.nprobe } : {})
    );
  }

  /** Opens the index that matches the database, replaying or rebuilding as needed. */
  static async open(
    store: IndexStore,
    embedder: EmbedderRecord,
    options: VectorIndexOptions = {},
    onEvent: (event: VectorIndexEvent) => void = () => {},
  ): Promise<VectorIndex> {
    const opened = await VectorIndex.#openOnCpu(store, embedder, options, onEvent);
    return opened.#placeForSearch(onEvent);
  }

  static async #openOnCpu(
    store: IndexStore,
    embedder: EmbedderRecord,
    options: VectorIndexOptions,
    onEvent: (event: VectorIndexEvent) => void,
  ): Promise<VectorIndex> {
    checkRecordedDimension(embedder);
    const settings = withDefaults(options);
    const newest = usableFile(store);
    if (newest) {
      let index: FaissIndex | undefined;
      try {
        const onCpu = settings.device === 'cpu';
        if (!newest.asWritten) onEvent({ type: 'index-checked', path: newest.path, reason: NOT_WRITTEN_HERE });
        index = await readVectorFile(newest, {
          shared: settings.shareFile && onCpu,
          mapped: settings.mapFile && onCpu,
        });
      } catch (error) {
        return VectorIndex.#rebuild(
          store,
          embedder,
          settings,
          onEvent,
          `the index file could not be read (${(error as Error).message})`,
        );
      }
      if (index.d !== embedder.dimension) {
        index.close();
        return VectorIndex.#rebuild(
          store,
          embedder,
          settings,
          onEvent,
          `the index file has ${index.d} dimensions, the embedder ${embedder.dimension}`,
        );
      }
      const opened = new VectorIndex(index, settings, nprobeFor(index.description), newest.generation);
      opened.#file = newest;
      return opened.#replay(store, embedder, onEvent, 'the index file');
    }
    return VectorIndex.#rebuild(
      store,
      embedder,
      settings,
      onEvent,
      listVectorFiles(store.directory).length === 0
        ? 'no index file yet'
        : 'no index file that this database wrote (a reset, or a file of another database)',
    );
  }

  /**
   * A new index of the type the vector count calls for, from the database's
   * vectors and, for those it no longer keeps, the index being replaced
   * (`previous`, which the caller closes). When some elements have their
   * vectors in neither (the only file was lost or damaged, with other
   * repositories' vectors in it), nothing is built: FaissError
   * CORRUPT_INDEX says to run the indexer, and a writer marks their files
   * to be read again and forgets the file.
   */
  static async #rebuild(
    store: IndexStore,
    embedder: EmbedderRecord,
    settings: Required<VectorIndexOptions>,
    onEvent: (event: VectorIndexEvent) => void,
    reason: string,
    previous?: FaissIndex,
  ): Promise<VectorIndex> {
    // A page of vectors at a time: a large index is never in memory twice (the rows, then FAISS's copy).
    const sources = { previous };
    const total = previous ? store.elementCount : store.vectorCount(embedder);
    const plan = planIndex(total, settings.approximateThreshold);
    const index = await FaissIndex.create({
      dimension: embedder.dimension,
      description: plan.description,
      metric: 'ip',
      ids: plan.ids,
    });
    const wanted = TRAINING_VECTORS_PER_LIST * (nlistOf(plan.description) ?? 1);
    if (!index.isTrained) await index.train(await readTrainingSample(store, embedder, total, wanted, sources));
    const missing: number[] = [];
    let added = 0;
    for await (const page of vectorPages(store, embedder, sources)) {
      missing.push(...page.missing);
      if (page.ids.length > 0) await index.addWithIds(page.vectors, page.ids);
      added += page.ids.length;
    }
    if (missing.length > 0) {
      // Not written: an index without them would answer as if they did not exist. Searches answer
      // lexically, saying why (search-store.ts), until a run of their repository has embedded them again.
      index.close();
      if (!store.readonly)
        store.transaction(() => {
          store.readFilesAgain(missing);
          store.meta.vectorsFile = '';
        });
      throw new FaissError(
        `${missing.length} of the index's ${store.elementCount} elements have no vector (${reason}): ` +
          'run oc-vector-index to embed them again' +
          (store.readonly ? '' : ' (their files are read again by the next run of their repository)'),
        'CORRUPT_INDEX',
      );
    }
    onEvent({ type: 'index-rebuilt', reason, vectors: added, description: plan.description });
    return new VectorIndex(index, settings, nprobeFor(plan.description), store.generation);
  }

  /**
   * Brings an open index level with the database again (a long-lived reader
   * while an indexer commits): replays what changed since its generation,
   * or opens afresh when a checkpoint or a reset has happened since (the
   * tombstones it would need may be pruned). Returns the index to use.
   */
  async refresh(
    store: IndexStore,
    embedder: EmbedderRecord,
    onEvent: (event: VectorIndexEvent) => void = () => {},
  ): Promise<VectorIndex> {
    const generation = store.generation;
    if (generation === this.generation) return this;
    const newest = usableFile(store);
    const rebuiltAt = store.meta.rebuiltAtGeneration;
    if (
      generation < this.generation ||
      rebuiltAt > this.generation ||
      (newest && newest.generation > this.generation)
    ) {
      const fresh = await VectorIndex.open(store, embedder, this.options, onEvent);
      this.close();
      return fresh;
    }
    return (await this.#replay(store, embedder, onEvent, 'the open index')).#placeForSearch(onEvent);
  }

  /** Places searches on the GPU copy, or back on the CPU, as the options and the index's size say (gpu-copy.ts). */
  async #placeForSearch(onEvent: (event: VectorIndexEvent) => void): Promise<VectorIndex> {
    const placed = await this.#gpu.place(this.index, this.options.device, this.options.gpuMinVectors);
    if (placed) onEvent({ type: 'index-placed', ...placed });
    return this;
  }

  /**
   * Applies the changes committed after this index's generation (tombstones,
   * then added elements); rebuilds when the count still disagrees with the
   * database. Returns the index to use.
   */
  async #replay(
    store: IndexStore,
    embedder: EmbedderRecord,
    onEvent: (event: VectorIndexEvent) => void,
    what: string,
  ): Promise<VectorIndex> {
    const generation = store.generation;
    if (this.generation < generation) {
      // The index other threads share stays as its file is: the changes go to a copy of this thread's own.
      if (this.index.shared || this.index.mapped)
        return (await this.#ownCopy(store, embedder, onEvent)).#replay(store, embedder, onEvent, what);
      const removed = store.removedAfter(this.generation);
      const added = store.vectors(embedder, this.generation);
      if (removed.length > 0) await this.index.removeIds(removed);
      if (added.ids.length > 0) await this.index.addWithIds(added.vectors, added.ids);
      // A GPU copy takes the additions; a removal, which it cannot take, makes it stale.
      await this.#gpu.changed(removed.length, added);
      onEvent({
        type: 'index-replayed',
        fromGeneration: this.generation,
        toGeneration: generation,
        added: added.ids.length,
        removed: removed.length,
      });
      this.generation = generation;
    }
    if (this.ntotal === store.elementCount) return this;
    return this.#replacedBy(
      store,
      embedder,
      onEvent,
      `${what} holds ${this.ntotal} vectors for ${store.elementCount} elements`,
    );
  }

  /**
   * A new index in place of this one (which is closed), its vectors read
   * from the database and, for those it no longer keeps, back from this one.
   */
  async #replacedBy(
    store: IndexStore,
    embedder: EmbedderRecord,
    onEvent: (event: VectorIndexEvent) => void,
    reason: string,
  ): Promise<VectorIndex> {
    try {
      return await VectorIndex.#rebuild(store, embedder, this.options, onEvent, reason, this.index);
    } finally {
      this.close();
    }
  }

  /**
   * This index as a copy of this thread's own, which may change (this one is
   * closed): FAISS's clone, or for a mapped index (which cannot be cloned)
   * its file read again whole, else rebuilt from the database.
   */
  async #ownCopy(
    store: IndexStore,
    embedder: EmbedderRecord,
    onEvent: (event: VectorIndexEvent) => void,
  ): Promise<VectorIndex> {
    let own: FaissIndex;
    try {
      // The file again, trusted only while it is still the one read (it may have been replaced since).
      const file = this.#file!;
      own = this.index.mapped
        ? await readVectorFile({ path: file.path, asWritten: file.asWritten && statIdentity(file.path) === file.stat })
        : await this.index.copyTo('cpu');
    } catch (error) {
      // The vectors the database no longer keeps are read back from the index it has (shared or mapped).
      return this.#replacedBy(store, embedder, onEvent, `the index could not be copied (${(error as Error).message})`);
    }
    this.close();
    return new VectorIndex(own, this.options, this.nprobe, this.generation);
  }

  /**
   * Why the file on disk should be rewritten now, if it should: there is
   * none for the current state, the index type no longer fits the size, or
   * the changes a reader would replay have grown past the checkpoint ratio.
   * Answered from the database alone: an indexer that changed one file
   * never loads the index.
   */
  static checkpointDue(store: IndexStore, options: VectorIndexOptions = {}): string | undefined {
    const { approximateThreshold: threshold, checkpointRatio: ratio } = withDefaults(options);
    const newest = usableFile(store);
    if (!newest) return 'no index file for this index yet';
    // Until then every reader checks the file in a child process before FAISS parses it.
    if (!newest.asWritten) return `the index file was ${NOT_WRITTEN_HERE}`;
    const count = store.elementCount;
    const description = store.meta.indexDescription;
    if (typeChanged(description, planIndex(count, threshold).description, count, threshold))
      return `${count} vectors call for another index type`;
    const pending = store.changesAfter(newest.generation);
    if (pending > Math.max(1_000, ratio * count)) return `${pending} changes since the file was written`;
    return undefined;
  }

  /**
   * Writes the file for the database's current generation and removes older
   * ones; rebuilds first when the index type should change. Returns the
   * index to use from now on (the same one unless it was rebuilt).
   */
  async checkpoint(
    store: IndexStore,
    embedder: EmbedderRecord,
    onEvent: (event: VectorIndexEvent) => void = () => {},
  ): Promise<VectorIndex> {
    let current: VectorIndex = this;
    const count = store.elementCount;
    const planned = planIndex(count, this.options.approximateThreshold).description;
    if (typeChanged(this.index.description, planned, count, this.options.approximateThreshold))
      current = await this.#replacedBy(store, embedder, onEvent, `${store.elementCount} vectors call for ${planned}`);
    const generation = store.generation;
    const name = vectorFileName(generation);
    const path = join(store.directory, name);
    await current.index.write(path);
    current.generation = generation;
    const record = fileRecord(path);
    if (record === undefined) throw new StoreError(`the index file ${path} just written cannot be read back`, 'IO');
    // Only now are the tombstones up to this generation in a durable file, and every vector too:
    // those of an embedder that recomputes cheaply are kept there alone from now on.
    store.transaction(() => {
      store.pruneRemoved(generation);
      if (recomputesCheaply(embedder.id)) store.dropEmbeddings(embedder.id);
      store.meta.indexDescription = current.index.description;
      // The file's stat too: a reader that finds it unchanged may map it rather than verify every byte (mapFile).
      store.meta.vectorsFile = record;
    });
    // Inside a rebuild's transaction, readers still use the old file until the commit: it is removed after it.
    if (!store.inTransaction) VectorIndex.removeUnusedFiles(store);
    onEvent({ type: 'index-written', generation, vectors: current.ntotal, path });
    return current.#placeForSearch(onEvent);
  }

  /**
   * Before a run of the repository `rootId` writes: are the vectors kept in
   * the file alone still there? When the file this database wrote is gone
   * or replaced, or was changed since it was written and no longer reads,
   * the elements whose vectors were there alone have lost them, and the
   * file is forgotten.
   * - This repository's: their files are marked to be read again, and their
   *   document hashes returned, for the run to embed them again (their rows
   *   stay, so searches answer as before once it has).
   * - Other repositories': this run cannot read their files, so their
   *   elements are dropped and their files marked, for their next run to
   *   index again (`forgotten`, by repository), and the file is written
   *   without them.
   * A file not written here that still reads (checked in a child process)
   * keeps its vectors; the run's checkpoint writes it again (checkpointDue).
   */
  static async lostVectors(
    store: IndexStore,
    embedder: EmbedderRecord,
    rootId: number,
  ): Promise<{ hashes: Set<string>; forgotten: Map<number, number> }> {
    const none = { hashes: new Set<string>(), forgotten: new Map<number, number>() };
    const file = usableFile(store);
    if (file?.asWritten) return none;
    const lost = store.withoutVector(embedder.id);
    if (lost.length === 0) return none;
    if (file && (await readsWhole(file))) return none;
    const own = lost.filter((element) => element.rootId === rootId);
    const others = lost.filter((element) => element.rootId !== rootId);
    const forgotten = new Map<number, number>();
    for (const element of others) forgotten.set(element.rootId, (forgotten.get(element.rootId) ?? 0) + 1);
    store.transaction(() => {
      store.readFilesAgain(own.map((element) => element.id));
      store.forgetElements(others.map((element) => element.id));
      store.meta.vectorsFile = '';
    });
    return { hashes: new Set(own.map((element) => element.hash)), forgotten };
  }

  /** Removes the index files other than the one the database records (older checkpoints, files of other databases). */
  static removeUnusedFiles(store: IndexStore): void {
    const current = usableFile(store)?.path;
    for (const file of listVectorFiles(store.directory)) if (file.path !== current) removeQuietly(file.path);
  }

  close(): void {
    this.#gpu.drop();
    this.index.close();
  }
}

/** Why a file is checked before FAISS parses it here (usableFile's asWritten). */
const NOT_WRITTEN_HERE =
  'not written by this index on this machine (copied, cloned, restored, changed since, or recorded by an older version)';

/**
 * Refuses, before any vector is read, a recorded dimension FAISS cannot
 * take (an index written from a misbehaving server by an older version):
 * FaissError INVALID_ARGUMENT saying what to do.
 */
function checkRecordedDimension({ id, dimension }: EmbedderRecord): void {
  if (isIndexableDimension(dimension)) return;
  throw new FaissError(
    `the index records ${String(dimension)} dimensions for its embedder ${id}, which FAISS cannot index (1 to ${MAX_DIMENSION}): ` +
      'its vectors cannot be searched; rebuild the index with a working embedder (oc-vector-index --rebuild)',
    'INVALID_ARGUMENT',
  );
}
