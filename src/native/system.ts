/** Process-wide facts and settings of the FAISS binding. */
import { loadAddon, type BlasInfo, type GpuInfo } from './addon.js';
import { checkInteger } from './validate.js';

/** Whether indexes can use a GPU, and if not, why. */
export function gpuInfo(): GpuInfo {
  return loadAddon().gpuInfo();
}

/** The BLAS library FAISS runs on in this process, and its threading. */
export function blasInfo(): BlasInfo {
  return loadAddon().blasInfo();
}

/** Threads used by FAISS and BLAS in every later call; 0 means all cores. */
export function setNumThreads(threads: number): void {
  loadAddon().setNumThreads(checkInteger('threads', threads, 0, 4096));
}

export function getNumThreads(): number {
  return loadAddon().getNumThreads();
}

/** Version of the FAISS library the addon was built against. */
export function faissVersion(): string {
  return loadAddon().faissVersion;
}
