export { FaissIndex } from './faiss-index.js';
export type { CreateIndexOptions, LoadIndexOptions, SearchParams, KnnResult } from './faiss-index.js';
export { FaissError } from './errors.js';
export type { FaissErrorCode } from './errors.js';
export { blasInfo, faissVersion, getNumThreads, gpuInfo, setNumThreads } from './system.js';
export { setNativeAddonPath } from './addon.js';
export type { BlasInfo, Device, GpuInfo, IndexKind, Metric } from './addon.js';
export type { IdsInput } from './validate.js';
