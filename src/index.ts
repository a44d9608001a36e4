/**
 * ocvector: local semantic code search. The public API, layer by layer.
 */
export * from './native/index.js';
export * from './analysis/index.js';
