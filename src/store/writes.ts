/**
 * What an indexing run writes, a batch of files at a time, whatever holds the index (reads.ts
 * is the search side's): the store's shape of a file, which the indexing run builds in one
 * place (indexing/file-record.ts) and hands to its StoreRun (store.ts). The embedded store
 * writes each batch in one SQLite transaction (embedded/run-writer.ts); the shared one writes
 * it with a few statements inside the run's own transaction (postgres/run-writer.ts).
 */
import type { ElementDocument } from '../vector/document.js';
import type { FileRow, FileUpdate, LineBytes } from './rows.js';

/** What becomes of one file in a batch. */
export type FileWrite =
  /** The same content under a new stat: only its size and mtime change. */
  | { kind: 'touch'; row: FileRow; size: number; mtimeMs: number }
  /** Its new state and elements (unchanged documents keep their rows and vectors). */
  | {
      kind: 'write';
      update: FileUpdate;
      documents: readonly ElementDocument[];
      /** The vectors of the documents the file did not hold already, by document hash. */
      vectors: ReadonlyMap<string, Float32Array>;
      /** Where the file's lines lie in bytes: elements record theirs. */
      lineBytes?: LineBytes | undefined;
      /** Its words and their lines (text/occurrences.ts); a file written without them keeps none. */
      occurrences?: ReadonlyMap<string, string> | undefined;
      /** The text as analysed (credentials redacted): a store that keeps text keeps this. */
      text?: string | undefined;
    };

/** What writing a file did to its elements. */
export interface WrittenFile {
  added: number;
  removed: number;
  kept: number;
}
