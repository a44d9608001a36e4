/**
 * What a VectorIndex (vector-file.ts) does when its options leave something out. The options
 * and the events it emits are the seam's (../open-options.ts): a store is opened with them.
 */
import type { VectorIndexOptions } from '../open-options.js';

export type { VectorIndexEvent, VectorIndexOptions } from '../open-options.js';

/** What a VectorIndex does when its options leave something out. */
export const VECTOR_INDEX_DEFAULTS: Required<VectorIndexOptions> = {
  approximateThreshold: 100_000,
  checkpointRatio: 0.05,
  device: 'cpu',
  gpuMinVectors: 10_000,
  shareFile: false,
  mapFile: false,
};

export function withDefaults(options: VectorIndexOptions): Required<VectorIndexOptions> {
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
