export { Indexer } from './indexer.js';
export type { IndexerOptions, RunOptions } from './indexer.js';
export type { IndexEvent, IndexSummary, FileChange } from './events.js';
export { watchIndex } from './watch.js';
export type { IndexWatcher, WatchOptions } from './watch.js';
