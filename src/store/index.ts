/** The store's internal exports (its public ones are in src/index.ts). */
export { IndexStore } from './store.js';
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
export { DEFAULT_INDEX_DESCRIPTION, IndexMeta } from './meta.js';
export { CHECKED_FILE, DATABASE_FILE, openDatabase, recordLastWriter, unchangedSinceLastWriter } from './database.js';
export { SCHEMA_VERSION } from './schema.js';
export { WriteLock, LOCK_FILE } from './lock.js';
export { VectorIndex, planIndex, nprobeFor, listVectorFiles, VECTOR_INDEX_DEFAULTS } from './vector-file.js';
export { checkConsistency } from './check.js';
export type { ConsistencyReport } from './check.js';
export { openIndex } from './open-index.js';
export { dropIndex } from './drop.js';
export type { DroppedIndex } from './drop.js';
export type { OpenedIndex } from './open-index.js';
export { ReferenceReader } from './reference-reader.js';
export type { EnclosingElement } from './reference-reader.js';
export type { OccurrenceFile } from './rows.js';
