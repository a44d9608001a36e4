/**
 * `ocvector/internal`: every layer's exports, for this repository's tests,
 * benchmarks, evaluation scripts and CLIs. Not the public API (that is
 * `ocvector`): names here may change or go in any release.
 */
export * from './index.js';
export * from './models/index.js';
export * from './analysis/index.js';
export * from './files/index.js';
export * from './vector/index.js';
export * from './store/index.js';
export * from './indexing/index.js';
export * from './search/index.js';
export * from './tool/index.js';
export * from './eval/index.js';
