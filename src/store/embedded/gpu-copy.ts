/**
 * The copy of a VectorIndex on a GPU that its searches use (vector-file.ts):
 * made when the options ask for one and the index is large enough, given the
 * vectors added since, and made again after a removal, which FAISS's GPU
 * indexes cannot take. The index on the CPU stays the one that changes and is
 * written.
 */
import type { Device } from '../../native/addon.js';
import type { FaissIndex, KnnResult } from '../../native/faiss-index.js';
import { gpuInfo } from '../../native/system.js';
import { GPU_MAX_K } from '../../native/validate.js';

/** Where searches went, and why: the event a VectorIndex emits when it places them. */
export interface Placement {
  device: 'cpu' | 'gpu';
  vectors: number;
  reason: string;
}

export class GpuCopy {
  #copy: FaissIndex | undefined;
  /** The copy misses a removal: it is made again before the next search. */
  #stale = false;
  /** Why 'auto' found no GPU: not asked again. */
  #noGpu: string | undefined;

  /** Where searches run now: 'gpu' when they go to the copy. */
  get device(): 'cpu' | 'gpu' {
    return this.#copy && !this.#stale ? 'gpu' : 'cpu';
  }

  /** A search on the copy, when searches go there and k is within FAISS's GPU limit; else undefined. */
  search(queries: Float32Array, k: number, nprobe: number | undefined): Promise<KnnResult> | undefined {
    if (this.device !== 'gpu' || k > GPU_MAX_K) return undefined;
    return this.#copy!.search(queries, k, nprobe ? { nprobe: Math.min(nprobe, GPU_MAX_K) } : {});
  }

  /**
   * Makes the copy when `device` asks for one and `index` holds at least
   * `minVectors`, or again when it missed a removal; drops it when the index
   * has become too small. Returns what it did, when it decided anything new.
   */
  async place(index: FaissIndex, device: Device, minVectors: number): Promise<Placement | undefined> {
    const vectors = index.ntotal;
    if (device === 'cpu' || vectors < minVectors || this.#noGpu !== undefined) {
      this.drop();
      return undefined;
    }
    if (this.device === 'gpu') return undefined;
    this.drop();
    const reason = device === 'auto' ? gpuInfo().reason : '';
    if (reason !== '') {
      // Asked once: without a GPU build or a device, 'auto' stays on the CPU for good.
      this.#noGpu = reason;
      return { device: 'cpu', vectors, reason };
    }
    const copy = await index.copyTo(device);
    if (copy.device !== 'gpu') {
      copy.close();
      this.#noGpu = copy.deviceReason;
      return { device: 'cpu', vectors, reason: copy.deviceReason };
    }
    this.#copy = copy;
    return { device: 'gpu', vectors, reason: copy.deviceReason };
  }

  /** What the index on the CPU took: additions go to the copy too; a removal makes it stale. */
  async changed(removed: number, added: { vectors: Float32Array; ids: BigInt64Array }): Promise<void> {
    if (removed > 0) this.#stale = true;
    else if (added.ids.length > 0 && this.device === 'gpu')
      await this.#copy!.addWithIds(added.vectors, added.ids).catch(() => {
        this.#stale = true;
      });
  }

  drop(): void {
    this.#copy?.close();
    this.#copy = undefined;
    this.#stale = false;
  }
}
