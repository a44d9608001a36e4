/** The indexing layer's internal exports (its public ones are in src/index.ts). */
export { DRY_RUN_ASSUMPTIONS } from './dry-run.js';
export { AnalysisPool } from './pool.js';
export type { AnalysisPoolOptions } from './pool.js';
export { eachConcurrently, IndexRun } from './index-run.js';
export type { FileRecord } from './file-record.js';
