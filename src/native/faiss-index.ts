/**
 * FaissIndex: a FAISS index in this process, on the CPU or a GPU. Every call
 * that can take long (train, add, search, removal, I/O) runs on a worker thread
 * and returns a Promise; the event loop never waits for FAISS.
 *
 * Concurrency: searches run in parallel with each other; train/add/removeIds
 * wait for running searches and block new ones until they finish. On a GPU,
 * every call runs alone: the indexes on one device share one set of FAISS GPU
 * resources, which serve one call at a time (SearchBatcher turns concurrent
 * queries into one call). The addon copies a call's input arrays before the
 * call returns, so a caller may reuse, modify or transfer them while the
 * Promise is pending.
 */
import { FaissError, invalidArgument } from './errors.js';
import {
  loadAddon,
  loadedAddonPath,
  type Device,
  type IndexKind,
  type Metric,
  type NativeIndexHandle,
  type NativeIndexInfo,
} from './addon.js';
import {
  MAX_DIMENSION,
  MAX_K,
  MAX_RESULTS,
  cannotRemoveMessage,
  cannotRestrictOnGpuMessage,
  checkDescription,
  checkDevice,
  checkGpuSearch,
  checkInteger,
  checkMetric,
  checkPath,
  checkVectors,
  toAllowedIds,
  toId,
  toIdArray,
  type IdsInput,
} from './validate.js';
import { type CheckInput, checkInChild, hasContainerMagic, peekIndexFile } from './plain-faiss.js';

export interface CreateIndexOptions {
  /** Vector dimension. */
  dimension: number;
  /**
   * FAISS factory string: "Flat" (exact), "HNSW32,Flat", "IVF1024,Flat",
   * "IVF256,PQ16", ... Default "Flat". An IVF index of half-precision codes
   * ("IVF1024,SQfp16") keeps each vector, not its residual from the list's
   * centroid: a vector already at half precision is kept exactly.
   */
  description?: string;
  /** 'ip' (inner product; cosine on normalised vectors) or 'l2'. Default 'ip'. */
  metric?: Metric;
  /** Map caller-chosen ids (an IDMap2 around the index). Default false: ids are 0..ntotal-1. */
  ids?: boolean;
  /** 'auto' uses a GPU only when FAISS was built for one and a device exists. Default 'cpu'. */
  device?: Device;
}

export interface LoadIndexOptions {
  device?: Device;
  /**
   * Also accept a plain FAISS serialisation (no ocvector header, so no
   * checksum), e.g. one written by Python's faiss.write_index. FAISS's parser
   * trusts its input, so such bytes are parsed in a child process, their
   * structure checked and a trial search run there, and only the checked
   * index comes back: a damaged file rejects with CORRUPT_INDEX (an index type
   * whose structure is not checked, with UNSUPPORTED) instead of crashing
   * this process. Files in the ocvector format are read here as usual.
   * Default false: such bytes are refused with CORRUPT_INDEX.
   */
  plainFaiss?: boolean;
  /**
   * The bytes may come from anyone (a file that arrived with a clone, a
   * tarball or a cache; not one this process's store wrote): a file or buffer
   * in the ocvector container is then parsed and checked in the child process
   * too, as plain bytes are (see `plainFaiss`; only the index types whose
   * structure is checked), and only the checked index comes back. Its
   * checksum alone does not make it safe: anyone can compute it. The index is
   * a private copy: `shared` and `mapped` do not apply. Plain bytes still need
   * `plainFaiss`. Default false: a container whose checksum verifies is
   * parsed in this process, which is for files the caller wrote.
   */
  untrusted?: boolean;
  /**
   * With `plainFaiss` or `untrusted`: the longest the child process may take
   * to check the bytes, in ms (CORRUPT_INDEX after it). Default one minute
   * plus one minute per GiB.
   */
  plainFaissTimeoutMs?: number;
  /**
   * Read the file once for the whole process: every thread (a searcher
   * pool's workers) that reads the same file with `shared` gets the same
   * index, and memory holds it once. Such an index is read-only: train, add
   * and remove reject with UNSUPPORTED. CPU only. An HNSW search's
   * `efSearch` is set on the index, so it holds for every thread's later
   * searches that give none. An addon built before this option reads a copy
   * as usual (`shared` then says false).
   */
  shared?: boolean;
  /**
   * Map an IVF index's lists from the file instead of reading them, and skip
   * the checksum pass (the structure is still checked): opening costs
   * milliseconds, and a search reads only the pages of the lists it probes.
   * Only for a file the caller knows to be as its writer left it (the store
   * records the file's stat when it writes it). The index is then read-only,
   * and cannot be copied or written: train, add, remove, write, toBuffer and
   * copyTo reject with UNSUPPORTED. Other index types are read whole. CPU
   * only; an older addon reads the file as usual (`mapped` then says false).
   */
  mapped?: boolean;
}

export interface SearchParams {
  /** HNSW: breadth of the search (recall against speed). */
  efSearch?: number;
  /** IVF: number of inverted lists visited. */
  nprobe?: number;
  /**
   * Only these ids may be returned: the k nearest neighbours among them, as
   * if the index held nothing else (a repository's vectors in a shared
   * index, say). A BigInt64Array or an array of non-negative integers, in any
   * order (sorted here when it is not ascending); ids not in the index are
   * ignored, and an empty set returns only -1 labels. k may exceed ntotal:
   * rows are padded with -1 labels where fewer than k allowed vectors exist.
   *
   * Flat: exact, at a cost proportional to the set. HNSW (Flat storage): a
   * set under 1/16 of the index is scanned exactly, a larger one by FAISS's
   * graph search with a selector. IVF: every list is visited (exact over the
   * set) when that computes no more distances than `nprobe` lists would,
   * i.e. the set is at most nprobe/nlist of the index; else `nprobe` lists,
   * with the set as a filter. CPU only: a GPU index rejects it (UNSUPPORTED);
   * search the CPU index it was copied from.
   */
  allowed?: IdsInput;
}

/**
 * Row-major results for `nq` queries: row q holds the k best neighbours of
 * query q, best first. Missing neighbours have label -1n. Distances are inner
 * products (higher is closer) for 'ip' and squared L2 (lower is closer) for 'l2'.
 */
export interface KnnResult {
  nq: number;
  k: number;
  distances: Float32Array;
  labels: BigInt64Array;
}

export class FaissIndex {
  readonly #native: NativeIndexHandle;
  readonly #info: NativeIndexInfo;

  private constructor(native: NativeIndexHandle) {
    this.#native = native;
    this.#info = native.info();
  }

  static async create(options: CreateIndexOptions): Promise<FaissIndex> {
    if (typeof options !== 'object' || options === null) throw invalidArgument('create() needs an options object');
    const dimension = checkInteger('dimension', options.dimension, 1, MAX_DIMENSION);
    const description = checkDescription(options.description ?? 'Flat');
    const metric = checkMetric(options.metric ?? 'ip');
    const device = checkDevice(options.device ?? 'cpu');
    if (options.ids !== undefined && typeof options.ids !== 'boolean') throw invalidArgument('ids must be a boolean');
    const native = await loadAddon().NativeIndex.create(dimension, description, metric, options.ids ?? false, device);
    return new FaissIndex(native);
  }

  /**
   * Reads an index written by {@link write}: a regular file whose header and
   * checksum verify (or, with `plainFaiss`, a plain FAISS index file). A file
   * this process did not write itself is read with `untrusted`.
   */
  static async read(path: string, options: LoadIndexOptions = {}): Promise<FaissIndex> {
    const load = checkLoadOptions(options);
    const { device } = load;
    const asked = checkFileReadOptions(options, device);
    const file = checkPath('path', path);
    const addon = loadAddon();
    if (load.plainFaiss || load.untrusted) {
      const found = await peekIndexFile(file);
      if (found.kind !== 'other' && goesToChild(found.kind === 'container', load))
        return FaissIndex.#checkedInChild({ path: file, size: found.size }, load);
    }
    // A container the caller trusts (its checksum verified before FAISS parses it), or what the
    // addon reports on before parsing a byte: a missing file, a directory, a FIFO, plain bytes refused.
    // An older addon reads a private copy whole, as before these options.
    const shared = asked.shared && (addon.features?.includes('sharedReads') ?? false);
    const mapped = asked.mapped && (addon.features?.includes('mappedReads') ?? false);
    return new FaissIndex(await addon.NativeIndex.read(file, device, false, shared, mapped));
  }

  /**
   * Reads an index from bytes made by {@link toBuffer} (or, with
   * `plainFaiss`, plain FAISS bytes; bytes from elsewhere with `untrusted`).
   * The bytes are copied before the call returns.
   */
  static async fromBuffer(buffer: Uint8Array, options: LoadIndexOptions = {}): Promise<FaissIndex> {
    if (!(buffer instanceof Uint8Array)) throw invalidArgument('buffer must be a Buffer or Uint8Array');
    const load = checkLoadOptions(options);
    const asBuffer = Buffer.isBuffer(buffer)
      ? buffer
      : Buffer.from(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    const addon = loadAddon();
    if (goesToChild(hasContainerMagic(asBuffer), load))
      return FaissIndex.#checkedInChild({ bytes: Buffer.from(asBuffer) }, load);
    return new FaissIndex(await addon.NativeIndex.fromBuffer(asBuffer, load.device, false));
  }

  /** The index the checking child parsed and checked, read from the container it made (plain-faiss.ts). */
  static async #checkedInChild(input: CheckInput, load: LoadChoice): Promise<FaissIndex> {
    const checked = await checkInChild(input, { addonPath: loadedAddonPath(), timeoutMs: load.plainFaissTimeoutMs });
    return new FaissIndex(await loadAddon().NativeIndex.fromBuffer(checked, load.device, false));
  }

  /** Vector dimension (FAISS's `d`). */
  get d(): number {
    return this.#info.dimension;
  }
  get metric(): Metric {
    return this.#info.metric;
  }
  /** The factory string it was created with (or one derived from a file). */
  get description(): string {
    return this.#info.description;
  }
  get kind(): IndexKind {
    return this.#info.kind;
  }
  /** Read with `shared`: one index for every thread that read its file so, which nothing may change. */
  get shared(): boolean {
    return this.#info.shared ?? false;
  }
  /** Read with `mapped`, an IVF index: its lists are mapped from its file, and nothing may change or copy it. */
  get mapped(): boolean {
    return this.#info.mapped ?? false;
  }
  /** True when the index maps caller-chosen ids (use addWithIds). */
  get hasIds(): boolean {
    return this.#info.ids;
  }
  get supportsRemove(): boolean {
    return this.#info.supportsRemove;
  }
  get device(): 'cpu' | 'gpu' {
    return this.#info.device;
  }
  /** Why the index is on its device (e.g. why 'auto' stayed on the CPU). */
  get deviceReason(): string {
    return this.#info.deviceReason;
  }
  get closed(): boolean {
    return this.#native.closed;
  }
  /** Number of vectors, as of the last completed add or removal. */
  get ntotal(): number {
    return this.#native.ntotal;
  }
  get isTrained(): boolean {
    return this.#native.isTrained;
  }

  /** Trains IVF/PQ indexes on representative vectors; a no-op for Flat and HNSW. */
  async train(vectors: Float32Array): Promise<void> {
    checkVectors('vectors', vectors, this.d);
    await this.#native.train(vectors);
  }

  /** Adds vectors with sequential ids ntotal, ntotal+1, ... */
  async add(vectors: Float32Array): Promise<void> {
    checkVectors('vectors', vectors, this.d);
    if (this.hasIds) throw new FaissError('this index maps your own ids: use addWithIds(vectors, ids)', 'UNSUPPORTED');
    await this.#native.add(vectors);
  }

  async addWithIds(vectors: Float32Array, ids: IdsInput): Promise<void> {
    const rows = checkVectors('vectors', vectors, this.d);
    const idArray = toIdArray('ids', ids);
    if (idArray.length !== rows) throw invalidArgument(`ids has ${idArray.length} entries for ${rows} vectors`);
    await this.#native.addWithIds(vectors, idArray);
  }

  /** k nearest neighbours of each query row; see {@link KnnResult}. */
  async search(queries: Float32Array, k: number, params: SearchParams = {}): Promise<KnnResult> {
    const nq = checkVectors('queries', queries, this.d);
    checkInteger('k', k, 1, MAX_K);
    const { efSearch, nprobe, allowed } = this.#checkParams(params);
    if (allowed === undefined) {
      // With a set of allowed ids, k may exceed ntotal (rows padded with -1).
      const total = this.ntotal;
      if (total === 0) throw invalidArgument('cannot search: the index is empty');
      if (k > total) throw invalidArgument(`k is ${k} but the index holds only ${total} vectors; pass k <= ntotal`);
    }
    if (nq * k > MAX_RESULTS) {
      throw invalidArgument(
        `nq·k is ${nq} queries × k ${k}, more than the ${MAX_RESULTS} results one search may return; search in batches of at most ${Math.floor(MAX_RESULTS / k)} queries`,
      );
    }
    if (this.device === 'gpu') {
      if (allowed !== undefined) throw new FaissError(cannotRestrictOnGpuMessage(this.description), 'UNSUPPORTED');
      checkGpuSearch(k, nprobe);
    }
    const { distances, labels } = await this.#native.search(queries, k, efSearch, nprobe, allowed);
    return { nq, k, distances, labels };
  }

  /**
   * Removes vectors by id; resolves with how many were removed. Flat and IVF
   * on the CPU only: FAISS's GPU indexes cannot remove (remove from a CPU copy
   * and place that on the GPU again).
   */
  async removeIds(ids: IdsInput): Promise<number> {
    const idArray = toIdArray('ids', ids);
    if (!this.supportsRemove) throw new FaissError(cannotRemoveMessage(this.description, this.device), 'UNSUPPORTED');
    return idArray.length === 0 ? 0 : this.#native.removeIds(idArray);
  }

  /** The stored vector for an id (exact for Flat/HNSW, decoded for PQ). */
  async reconstruct(id: number | bigint): Promise<Float32Array> {
    return this.#native.reconstruct(toId('id', id));
  }

  /**
   * The stored vectors of many ids in one call, from an index with ids
   * (`ids: true`) or an IVF index, on the CPU: `vectors` holds one row per id
   * asked for (zeros where `found` is 0: an id the index does not hold).
   * Nothing in the index changes, so a shared or mapped index can be read.
   * What a rebuild reads back from the index it replaces. An addon older than
   * this method fails with FaissError UNSUPPORTED.
   */
  async reconstructMany(ids: IdsInput): Promise<{ vectors: Float32Array; found: Uint8Array }> {
    const idArray = toIdArray('ids', ids);
    if (typeof this.#native.reconstructMany !== 'function')
      throw new FaissError(
        'this build of the addon cannot read vectors back by id: rebuild it (npm run build)',
        'UNSUPPORTED',
      );
    return this.#native.reconstructMany(idArray);
  }

  /** Writes the index atomically (temporary file, fsync, rename), checksummed. */
  async write(path: string): Promise<void> {
    await this.#native.write(checkPath('path', path));
  }

  async toBuffer(): Promise<Buffer> {
    return this.#native.toBuffer();
  }

  /**
   * A copy of this index on `device` (as in {@link CreateIndexOptions.device}:
   * 'auto' stays on the CPU when no GPU can take it, and says why); this index
   * stays where it is. A GPU index is copied through the CPU.
   */
  async copyTo(device: Device): Promise<FaissIndex> {
    return new FaissIndex(await this.#native.copyTo(checkDevice(device)));
  }

  /**
   * Releases the index. Idempotent. Calls made after it reject with
   * INDEX_CLOSED; calls already running finish first, then the memory is freed.
   */
  close(): void {
    this.#native.close();
  }

  #checkParams(params: SearchParams): {
    efSearch: number | undefined;
    nprobe: number | undefined;
    allowed: BigInt64Array | undefined;
  } {
    if (typeof params !== 'object' || params === null) throw invalidArgument('search params must be an object');
    const efSearch = params.efSearch === undefined ? undefined : checkInteger('efSearch', params.efSearch, 1, 1 << 20);
    const nprobe = params.nprobe === undefined ? undefined : checkInteger('nprobe', params.nprobe, 1, 1 << 24);
    if (efSearch !== undefined && this.kind !== 'hnsw') {
      throw invalidArgument(`efSearch applies to HNSW indexes; this index is ${this.description}`);
    }
    if (nprobe !== undefined && this.kind !== 'ivf') {
      throw invalidArgument(`nprobe applies to IVF indexes; this index is ${this.description}`);
    }
    const allowed = params.allowed === undefined ? undefined : toAllowedIds(params.allowed);
    if (allowed !== undefined && !loadAddon().features?.includes('searchAllowed')) {
      // An older addon would ignore the set and search everything.
      throw new FaissError(
        `the native addon loaded from ${loadedAddonPath()} predates searches restricted to allowed ids; rebuild it (npm run build:native, or npm run build:gpu for the GPU addon)`,
        'UNSUPPORTED',
      );
    }
    return { efSearch, nprobe, allowed };
  }
}

/** The longest plainFaissTimeoutMs: a day. */
const MAX_PLAIN_FAISS_TIMEOUT_MS = 86_400_000;

/** The load options, checked. */
interface LoadChoice {
  device: Device;
  plainFaiss: boolean;
  untrusted: boolean;
  plainFaissTimeoutMs: number | undefined;
}

function checkLoadOptions(options: LoadIndexOptions): LoadChoice {
  if (typeof options !== 'object' || options === null) throw invalidArgument('load options must be an object');
  for (const name of ['plainFaiss', 'untrusted'] as const)
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw invalidArgument(`${name} must be a boolean`);
  const plainFaissTimeoutMs =
    options.plainFaissTimeoutMs === undefined
      ? undefined
      : checkInteger('plainFaissTimeoutMs', options.plainFaissTimeoutMs, 1, MAX_PLAIN_FAISS_TIMEOUT_MS);
  return {
    device: checkDevice(options.device ?? 'cpu'),
    plainFaiss: options.plainFaiss ?? false,
    untrusted: options.untrusted ?? false,
    plainFaissTimeoutMs,
  };
}

/** Whether bytes are parsed in the checking child: a container's with `untrusted`, plain ones with `plainFaiss`. */
function goesToChild(container: boolean, load: LoadChoice): boolean {
  return container ? load.untrusted : load.plainFaiss;
}

/** read()'s own options, `shared` and `mapped`: booleans, for an index on the CPU. */
function checkFileReadOptions(options: LoadIndexOptions, device: Device): { shared: boolean; mapped: boolean } {
  for (const name of ['shared', 'mapped'] as const) {
    const value = options[name];
    if (value !== undefined && typeof value !== 'boolean') throw invalidArgument(`${name} must be a boolean`);
    if (value && device !== 'cpu') throw invalidArgument(`only an index on the CPU is read ${name}`);
  }
  return { shared: options.shared === true, mapped: options.mapped === true };
}

/** Whether the loaded addon can restrict a search to allowed ids (older prebuilt ones cannot): see FaissIndex.search. */
export function searchesAllowedIds(): boolean {
  return loadAddon().features?.includes('searchAllowed') ?? false;
}
