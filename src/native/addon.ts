/**
 * Loads the native addon and describes its raw surface. Nothing outside
 * src/native talks to the addon: the facade in faiss-index.ts validates every
 * argument before it crosses the boundary.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { FaissError } from './errors.js';

export type Metric = 'ip' | 'l2';
export type Device = 'cpu' | 'gpu' | 'auto';
export type IndexKind = 'flat' | 'hnsw' | 'ivf' | 'other';

export interface NativeIndexInfo {
  dimension: number;
  metric: Metric;
  description: string;
  kind: IndexKind;
  ids: boolean;
  supportsRemove: boolean;
  device: 'cpu' | 'gpu';
  deviceReason: string;
  /** Read shared: the same index for every thread that read its file so; absent from older builds. */
  shared?: boolean;
  /** An IVF index whose lists are mapped from its file; absent from older builds. */
  mapped?: boolean;
}

export interface NativeSearchResult {
  distances: Float32Array;
  labels: BigInt64Array;
}

export interface NativeIndexHandle {
  readonly closed: boolean;
  readonly ntotal: number;
  readonly isTrained: boolean;
  info(): NativeIndexInfo;
  train(vectors: Float32Array): Promise<void>;
  add(vectors: Float32Array): Promise<void>;
  addWithIds(vectors: Float32Array, ids: BigInt64Array): Promise<void>;
  /** `allowed`: ids ascending without repeats; results are restricted to them (k may then exceed ntotal). */
  search(
    queries: Float32Array,
    k: number,
    efSearch?: number,
    nprobe?: number,
    allowed?: BigInt64Array,
  ): Promise<NativeSearchResult>;
  removeIds(ids: BigInt64Array): Promise<number>;
  reconstruct(id: bigint): Promise<Float32Array>;
  /** Absent from builds older than it. */
  reconstructMany?(ids: BigInt64Array): Promise<{ vectors: Float32Array; found: Uint8Array }>;
  write(path: string): Promise<void>;
  toBuffer(): Promise<Buffer>;
  copyTo(device: Device): Promise<NativeIndexHandle>;
  close(): void;
}

export interface GpuInfo {
  /** FAISS was built with GPU support (scripts/build-gpu.sh builds such an addon). */
  compiled: boolean;
  /** CUDA devices visible to this process. */
  devices: number;
  /**
   * Devices whose FAISS GPU resources (cuBLAS handle, streams, up to 1.5 GiB of
   * temporary memory) are alive: one set per device, shared by every index on
   * it and freed with the last of them.
   */
  sharedResources: number;
  /** Why indexes stay on the CPU; empty when a GPU can be used. */
  reason: string;
}

export interface BlasInfo {
  /** The shared object that provides BLAS to FAISS in this process. */
  library: string;
  vendor: 'openblas' | 'mkl' | 'blis' | 'reference' | 'unknown';
  /** The vendor's build description (OpenBLAS: version, threading, core). */
  config: string;
  threading: 'openmp' | 'pthreads' | 'sequential' | 'unknown';
  /**
   * The CPU kernel OpenBLAS chose (`Haswell`, `SkylakeX`, `Zen`; `Prescott`
   * or another generic name when it does not know the CPU, several times
   * slower: set OPENBLAS_CORETYPE). Empty for other vendors.
   */
  coreType: string;
  /** OMP_WAIT_POLICY as the process saw it when the addon loaded. */
  ompWaitPolicy: string;
}

export interface NativeAddon {
  NativeIndex: {
    create(
      dimension: number,
      description: string,
      metric: Metric,
      ids: boolean,
      device: Device,
    ): Promise<NativeIndexHandle>;
    /**
     * `plainFaiss` lets FAISS's parser read bytes without the container in
     * this process: only the checking child (plain-faiss.ts) passes it.
     * `shared`: one index in memory for every thread that reads the file so
     * (read-only; FaissIndex.read's `shared`). `mapped`: no checksum pass,
     * an IVF index's lists mapped from the file (FaissIndex.read's `mapped`).
     */
    read(
      path: string,
      device: Device,
      plainFaiss?: boolean,
      shared?: boolean,
      mapped?: boolean,
    ): Promise<NativeIndexHandle>;
    fromBuffer(buffer: Buffer, device: Device, plainFaiss?: boolean): Promise<NativeIndexHandle>;
  };
  setErrorClass(errorClass: typeof FaissError): void;
  gpuInfo(): GpuInfo;
  blasInfo(): BlasInfo;
  setNumThreads(threads: number): void;
  getNumThreads(): number;
  /** How many indexes read with `shared` are in memory now, across the process's threads; absent from older builds. */
  sharedIndexes?(): number;
  /**
   * Caps this process's further memory growth (Linux RLIMIT_DATA); only the
   * child that checks a plain FAISS file calls it (plain-faiss.ts).
   */
  capMemoryGrowth(bytes: number): boolean;
  faissVersion: string;
  /**
   * What this build can do that older ones cannot ('searchAllowed': search's
   * `allowed` argument; 'sharedReads': read's `shared`; 'mappedReads': read's `mapped`); absent from builds older than the list. An older
   * addon ignores arguments it does not know, so the facade checks first.
   */
  features?: readonly string[];
}

const packageRoot = fileURLToPath(new URL('../../', import.meta.url));

let configuredPath: string | undefined;

/**
 * An ocvector.node to try before the built ones (the CLIs pass
 * OCVECTOR_NATIVE_PATH). Takes effect at the first load: call it before
 * any index is made.
 */
export function setNativeAddonPath(path: string | undefined): void {
  configuredPath = path;
}

/**
 * Where the addon may be, first match wins: one the caller names, one built
 * here from source (against this machine's FAISS, perhaps with GPU support),
 * then the prebuilt one the package ships for this platform, with FAISS,
 * OpenBLAS and OpenMP beside it (scripts/prebuild.mjs).
 */
export function addonCandidates(path: string | undefined = configuredPath): string[] {
  return [
    ...(path ? [path] : []),
    `${packageRoot}build/Release/ocvector.node`,
    `${packageRoot}build/Debug/ocvector.node`,
    `${packageRoot}prebuilds/${process.platform}-${process.arch}/ocvector.node`,
  ];
}

/**
 * OpenMP threads that wait actively spin on every core between parallel
 * regions; with FAISS and OpenBLAS sharing the cores with Node's own threads
 * that made batched searches many times slower (docs/performance.md, "Passive
 * OpenMP threads"). libgomp reads the policy once, when it is loaded, so it is
 * set before the addon (which links libgomp) is loaded. A value the user set
 * is kept. The one environment variable the library touches: it configures
 * the OpenMP runtime of this process, not ocvector, and must be in place
 * before any caller (a CLI or an application) loads FAISS.
 */
function preferPassiveOpenMpThreads(): void {
  process.env.OMP_WAIT_POLICY ??= 'PASSIVE';
}

function explainLoadFailure(tried: string[], cause: unknown): FaissError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  const missingLibrary = /lib(faiss|blas|lapack|gomp|openblas)[^:]*: cannot open shared object/.exec(detail);
  const lines = [
    `ocvector: cannot load the native FAISS addon: ${missingLibrary ? `${missingLibrary[0]}` : detail}`,
    `Looked for: ${tried.join(', ')}`,
    'Possible solutions:',
    '  - in an ocvector checkout: bash scripts/setup.sh (installs FAISS and OpenBLAS, builds everything);',
    '  - install the system libraries: sudo apt-get install -y libfaiss-dev libopenblas-openmp-dev, then npm rebuild ocvector;',
    '  - point OCVECTOR_NATIVE_PATH (the CLIs) or setNativeAddonPath() (the library) at an ocvector.node built for this machine.',
  ];
  return new FaissError(lines.join('\n'), 'ADDON_LOAD_FAILED', { cause });
}

/** Which file each loaded addon came from. */
const loadedFrom = new WeakMap<NativeAddon, string>();

/** Loads the first candidate that exists; throws one explained error otherwise. */
export function loadAddonFrom(candidates: string[]): NativeAddon {
  preferPassiveOpenMpThreads();
  const path = candidates.find((candidate) => existsSync(candidate));
  if (!path) throw explainLoadFailure(candidates, new Error('the addon has not been built'));
  let addon: NativeAddon;
  try {
    addon = createRequire(import.meta.url)(path) as NativeAddon;
  } catch (cause) {
    throw explainLoadFailure([path], cause);
  }
  addon.setErrorClass(FaissError);
  loadedFrom.set(addon, path);
  return addon;
}

let loaded: NativeAddon | undefined;

/** The addon, loaded once per process (or worker thread). */
export function loadAddon(): NativeAddon {
  loaded ??= loadAddonFrom(addonCandidates());
  return loaded;
}

/** The file the addon of {@link loadAddon} was loaded from (a child process loads the same one). */
export function loadedAddonPath(): string {
  const addon = loadAddon();
  const path = loadedFrom.get(addon);
  if (path === undefined) throw new FaissError('the native addon was loaded from an unknown file', 'INTERNAL');
  return path;
}
