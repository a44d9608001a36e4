/**
 * What a store is chosen and opened with (open.ts): the choice that names it, and the options a
 * kind of store may read: the embedded index's directory, the options of its FAISS file and the
 * events that file emits. These are the seam's, not one store's: the public API exports the
 * vector index's options and events from here, and the embedded store reads them.
 */
import type { Device } from '../native/addon.js';

/** A shared store: `postgres://user@host:port/db` (or `postgresql://`), and the schema it lives in (default `ocvector`). */
export interface PostgresChoice {
  url: string;
  schema?: string | undefined;
}

/**
 * Where an index is: undefined for the embedded one, a URL, or a URL with a schema. Which kind of
 * store a choice names is the registry's question (locations.ts).
 */
export type StoreChoice = string | PostgresChoice | undefined;

export interface OpenStoreOptions {
  /** The embedded index's directory: needed when the choice is the embedded store. */
  indexDir?: string | undefined;
  /** The embedded index's FAISS options, and its events. */
  vectorIndex?: VectorIndexOptions | undefined;
  onEvent?: ((event: VectorIndexEvent) => void) | undefined;
}

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
   * Where the FAISS file's searches run: 'cpu' (the default), 'auto' (a GPU
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
   * is as this store wrote it (its inode, size, modification and change times,
   * recorded at the checkpoint): what a one-shot search (oc-vector-search) wants, since
   * it reads the lists it probes and nothing else. Changes to replay are made
   * on a copy read whole. Default false.
   */
  mapFile?: boolean;
}

export type VectorIndexEvent =
  | { type: 'index-replayed'; fromGeneration: number; toGeneration: number; added: number; removed: number }
  | { type: 'index-rebuilt'; reason: string; vectors: number; description: string }
  /** A run's checkpoint not written: some elements have no vector until their repository's next run (embedded/vector-file.ts). */
  | { type: 'index-not-written'; reason: string }
  /**
   * Another repository's vectors were lost with the FAISS file (embedded/vector-file.ts, lostVectors): its
   * elements are dropped until its next run, which reads its files again.
   */
  | { type: 'repository-vectors-lost'; repository: string; root: string; elements: number }
  /**
   * The index was moved or copied from `from`'s `.ocvector` to `to`'s: the roots inside `from` are
   * recorded inside `to` now, and the run reads their files there (embedded/relocation.ts).
   */
  | { type: 'index-moved'; from: string; to: string }
  /**
   * The index, in `home`'s default place, records a repository outside `home`: it is not read,
   * listed, searched or indexed from this index (embedded/repositories.ts).
   */
  | { type: 'repository-outside'; repository: string; root: string; home: string }
  | { type: 'index-written'; generation: number; vectors: number; path: string }
  /**
   * The recorded file was not written by this index on this machine (embedded/vector-files.ts, asWritten): it is
   * parsed and checked in a child process before this one reads it, until an indexer run writes it again.
   */
  | { type: 'index-checked'; path: string; reason: string }
  | { type: 'index-placed'; device: 'cpu' | 'gpu'; vectors: number; reason: string };
