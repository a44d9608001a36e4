export { Indexer, INDEXER_DEFAULTS } from './indexer.js';
export type { IndexerOptions, RunOptions } from './indexer.js';
export type { IndexEvent, IndexSummary, FileChange } from './events.js';
export { watchIndex } from './watch.js';
export type { IndexWatcher, WatchOptions } from './watch.js';
export { indexStatus } from './status.js';
export type { IndexStatus, StatusOptions } from './status.js';
export { DRY_RUN_ASSUMPTIONS } from './dry-run.js';
export type { DryRunReport, DryRunGroup } from './dry-run.js';
