export { findRoot, defaultIndexDir, INDEX_DIR_NAME } from './root.js';
export { scanRoot, scanPaths, isInside } from './scan.js';
export type { ScannedFile, ExcludedFile, ScanOptions } from './scan.js';
export { isSecretName, defaultExcludeReason } from './rules.js';
export type { ExcludeReason } from './rules.js';
export { gitChangesSince } from './git.js';
export type { GitChanges } from './git.js';
export { contentHash } from './hash.js';
export { LineStarts } from './line-starts.js';
