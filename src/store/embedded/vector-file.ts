/**
 * The FAISS side of an index: derived from the database, never the other
 * way round. The file beside the database is named after the generation it
 * reflects (`vectors-g<N>.ocvx`, written atomically). It may lag behind the
 * database: the changes since its generation (elements added, tombstones of
 * removed vectors) are replayed on open, so a run that changes one file
 * does not rewrite a large index, and a crash between the database commit
 * and the file write loses nothing. The file is rewritten (a checkpoint)
 * when the replayed part grows large, or its type no longer fits the size.
 *
 * Index type: exact (Flat, ids mapped) while small; IVF past a threshold,
 * which FAISS can also remove from. Both remove in place, so deletions are
 * exact on each.
 *
 * A file belongs to one database: the database records the name and the
 * container header (payload length and checksum) of the file it wrote, and
 * only that file is used. A file left by another database in the same
 * directory (the database deleted and indexed again, a file copied from
 * another index) is ignored and rebuilt, whatever its generation says.
 * Only regular files are opened.
 *
 * Searching on a GPU (`device`): the index above stays on the CPU, the one
 * that changes and is written (FAISS's GPU indexes cannot remove), and
 * searches go to a copy of it on the GPU once it holds `gpuMinVectors`
 * vectors. Vectors added since are added to the copy too; a removal makes the
 * copy again. Concurrent searches are answered together (SearchBatcher).
 */
import { join } from 'node:path';
import type { Device } from '../../native/addon.js';
import { FaissError } from '../../native/errors.js';
import { FaissIndex, type KnnResult, searchesAllowedIds } from '../../native/faiss-index.js';
import type { IdsInput } from '../../native/validate.js';
import { SearchBatcher, type SearchBatcherStats } from '../../native/search-batcher.js';
import { MAX_DIMENSION } from '../../native/validate.js';
import { StoreError } from './database.js';
import { GpuCopy } from './gpu-copy.js';
import type { IndexStore } from './index-store.js';
import { readTrainingSample, TRAINING_VECTORS_PER_LIST, vectorPages } from './vector-pages.js';
import {
  fileIdentity,
  listVectorFiles,
  removeQuietly,
  statIdentity,
  usableFile,
  vectorFileName,
} from './vector-files.js';
import type { EmbedderRecord } from '../rows.js';
import { isIndexableDimension } from '../../vector/check.js';

export interface VectorIndexOptions {
  /**
   * Past this many vectors an IVF index replaces the exact one. Default 100,000: there exact
   * search alone takes half of a hybrid query's budget (docs/performance.md, Indexing:
   * `npm run bench:indexing -- --index-type`).
   */
  approximateThreshold?: number;
  /** Changes (added + removed) since the file past this share of the index trigger a checkpoint. Default 0.05. */
  checkpointRatio?: number;
  /**
   * Where {@link VectorIndex.search} runs: 'cpu' (the default), 'auto' (a GPU
   * copy when FAISS was built for one and a device exists, else the CPU) or
   * 'gpu' (a GPU copy, or FaissError GPU). Worth it in a long-lived process (a
   * server): a copy takes a CUDA start and a transfer of the whole index.
   */
  device?: Device;
  /**
   * Below this many vectors searches stay on the CPU whatever `device` says:
   * for small indexes a GPU call costs more than it saves. Default 10,000:
   * from there one query is faster on the GPU, and the copy to the GPU is paid
   * back within some fifty queries (docs/performance.md, GPU: `npm run
   * bench:native -- --gpu` prints the crossover).
   */
  gpuMinVectors?: number;
  /**
   * Read the FAISS file shared with the other threads of this process that
   * read it so (a searcher pool's workers): one copy in memory for them all
   * (FaissIndex.read's `shared`). Changes to replay onto it are made on a
   * copy of this thread's own (each worker's, until the next checkpoint file,
   * which they share again). Default false.
   */
  shareFile?: boolean;
  /**
   * Map an IVF file's lists instead of reading the file whole, when the file
   * is as this store wrote it (its size, modification time and inode, recorded
   * at the checkpoint): what a one-shot search (oc-vector-search) wants, since
   * it reads the lists it probes and nothing else. Changes to replay are made
   * on a copy read whole. Default false.
   */
  mapFile?: boolean;
}

export type VectorIndexEvent =
  | { type: 'index-replayed'; fromGeneration: number; toGeneration: number; added: number; removed: number }
  | { type: 'index-rebuilt'; reason: string; vectors: number; description: string }
  | { type: 'index-written'; generation: number; vectors: number; path: string }
  | { type: 'index-placed'; device: 'cpu' | 'gpu'; vectors: number; reason: string };

/** Which FAISS index a number of vectors calls for. */
export function planIndex(count: number, threshold: number): { description: string; ids: boolean } {
  if (count < threshold) return { description: 'Flat', ids: true };
  // About 4·√n lists (FAISS's guidance), a power of two.
  const nlist = Math.max(64, Math.min(65_536, 2 ** Math.round(Math.log2(4 * Math.sqrt(count)))));
  return { description: `IVF${nlist},Flat`, ids: false };
}

/** How many IVF lists a search visits: 1/16 of them keeps recall@10 near 0.95 on code vectors. */
export function nprobeFor(description: string): number | undefined {
  const nlist = nlistOf(description);
  return nlist === undefined ? undefined : Math.max(8, nlist >> 4);
}

function nlistOf(description: string): number | undefined {
  const nlist = /^IVF(\d+)/.exec(description)?.[1];
  return nlist === undefined ? undefined : Number(nlist);
}

/** What a VectorIndex does when its options leave something out. */
export const VECTOR_INDEX_DEFAULTS: Required<VectorIndexOptions> = {
  approximateThreshold: 100_000,
  checkpointRatio: 0.05,
  device: 'cpu',
  gpuMinVectors: 10_000,
  shareFile: false,
  mapFile: false,
};

function withDefaults(options: VectorIndexOptions): Required<VectorIndexOptions> {
  const d = VECTOR_INDEX_DEFAULTS;
  return {
    approximateThreshold: options.approximateThreshold ?? d.approximateThreshold,
    checkpointRatio: options.checkpointRatio ?? d.checkpointRatio,
    device: options.device ?? d.device,
    gpuMinVectors: options.gpuMinVectors ?? d.gpuMinVectors,
    shareFile: options.shareFile ?? d.shareFile,
    mapFile: options.mapFile ?? d.mapFile,
  };
}

export class VectorIndex {
  /** The copy of `index` on a GPU that searches use, when the options ask for one. */
  readonly #gpu = new GpuCopy();
  readonly #batcher: SearchBatcher;
  /** The file the index was read from, when it was: where a copy of a mapped index is read again. */
  #file: string | undefined;

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
        index = await FaissIndex.read(newest.path, {
          shared: settings.shareFile && onCpu,
          mapped: settings.mapFile && onCpu && newest.asWritten,
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
      opened.#file = newest.path;
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

  static async #rebuild(
    store: IndexStore,
    embedder: EmbedderRecord,
    settings: Required<VectorIndexOptions>,
    onEvent: (event: VectorIndexEvent) => void,
    reason: string,
  ): Promise<VectorIndex> {
    // A page of vectors at a time: a large index is never in memory twice (the rows, then FAISS's copy).
    const total = store.vectorCount(embedder);
    const plan = planIndex(total, settings.approximateThreshold);
    const index = await FaissIndex.create({
      dimension: embedder.dimension,
      description: plan.description,
      metric: 'ip',
      ids: plan.ids,
    });
    if (!index.isTrained)
      await index.train(
        readTrainingSample(store, embedder, total, TRAINING_VECTORS_PER_LIST * (nlistOf(plan.description) ?? 1)),
      );
    const missing: number[] = [];
    let added = 0;
    for (const page of vectorPages(store, embedder)) {
      missing.push(...page.missing);
      if (page.ids.length > 0) await index.addWithIds(page.vectors, page.ids);
      added += page.ids.length;
    }
    if (missing.length > 0 && !store.readonly) {
      // An element without a vector cannot be searched: drop it so the two sides agree; the next run re-indexes its file.
      store.transaction(() => store.forgetElements(missing));
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
    const held = this.ntotal;
    this.close();
    return VectorIndex.#rebuild(
      store,
      embedder,
      this.options,
      onEvent,
      `${what} holds ${held} vectors for ${store.elementCount} elements`,
    );
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
      own = this.index.mapped ? await FaissIndex.read(this.#file!) : await this.index.copyTo('cpu');
    } catch (error) {
      this.close();
      return VectorIndex.#rebuild(
        store,
        embedder,
        this.options,
        onEvent,
        `the index could not be copied (${(error as Error).message})`,
      );
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
    if (typeChanged(this.index.description, planned, count, this.options.approximateThreshold)) {
      this.close();
      current = await VectorIndex.#rebuild(
        store,
        embedder,
        this.options,
        onEvent,
        `${store.elementCount} vectors call for ${planned}`,
      );
    }
    const generation = store.generation;
    const name = vectorFileName(generation);
    const path = join(store.directory, name);
    await current.index.write(path);
    current.generation = generation;
    const identity = fileIdentity(path);
    const written = statIdentity(path);
    if (identity === undefined || written === undefined)
      throw new StoreError(`the index file ${path} just written cannot be read back`, 'IO');
    // Only now are the tombstones up to this generation in a durable file.
    store.transaction(() => {
      store.pruneRemoved(generation);
      store.meta.indexDescription = current.index.description;
      // The file's stat too: a reader that finds it unchanged may map it rather than verify every byte (mapFile).
      store.meta.vectorsFile = `${name} ${identity} ${written}`;
    });
    // Inside a rebuild's transaction, readers still use the old file until the commit: it is removed after it.
    if (!store.inTransaction) VectorIndex.removeUnusedFiles(store);
    onEvent({ type: 'index-written', generation, vectors: current.ntotal, path });
    return current.#placeForSearch(onEvent);
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

/** The planned type differs, with hysteresis so that an index near the threshold does not flip back and forth. */
function typeChanged(current: string, planned: string, count: number, threshold: number): boolean {
  if (current === 'Flat') return planned !== 'Flat';
  return count < threshold / 2;
}
