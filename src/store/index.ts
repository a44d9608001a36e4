/** The store's internal exports (its public ones are in src/index.ts). */
export { IndexStore } from './embedded/index-store.js';
export { UNTRUSTED_MTIME } from './rows.js';
export type {
  ElementRow,
  ElementSummary,
  EmbedderRecord,
  FileRow,
  FileStatus,
  FileSummary,
  FileUpdate,
} from './rows.js';
export { DEFAULT_INDEX_DESCRIPTION, IndexMeta } from './embedded/meta.js';
export {
  CHECKED_FILE,
  DATABASE_FILE,
  openDatabase,
  recordLastWriter,
  unchangedSinceLastWriter,
} from './embedded/database.js';
export { SCHEMA_VERSION } from './embedded/schema.js';
export { WriteLock, LOCK_FILE } from './embedded/lock.js';
export { VectorIndex, VECTOR_INDEX_DEFAULTS } from './embedded/vector-file.js';
export { planIndex, nprobeFor } from './embedded/index-plan.js';
export { listVectorFiles } from './embedded/vector-files.js';
export { checkConsistency } from './embedded/check.js';
export type { ConsistencyReport } from './embedded/check.js';
export { openIndex } from './embedded/open-index.js';
export { dropIndex } from './embedded/drop.js';
export type { DroppedIndex } from './store.js';
export type { OpenedIndex } from './embedded/open-index.js';
export { ReferenceReader } from './embedded/reference-reader.js';
export type { EnclosingElement } from './embedded/reference-reader.js';
export type { OccurrenceFile } from './rows.js';
