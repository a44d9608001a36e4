/**
 * ocvector: local semantic code search. The public API, layer by layer.
 */
export * from './native/index.js';
export * from './analysis/index.js';
export * from './files/index.js';
export * from './vector/index.js';
export * from './store/index.js';
export * from './indexing/index.js';
export * from './search/index.js';
export * from './tool/index.js';
export * from './eval/index.js';
