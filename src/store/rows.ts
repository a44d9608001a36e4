/**
 * The records every store reads and writes, whatever holds them: files and
 * elements as stored, a file's new state, a search hit's row, the embedder
 * and the last run recorded, the repositories, and the summaries listed for
 * `--status` and for picking queries. Part of the seam (store.ts): a store
 * implementation imports them from here, and a reader of the types need not
 * read any SQL.
 */

/**
 * The mtime recorded for a file whose content is not to be trusted by its
 * stat alone (changed too close to being read, or its elements forgotten):
 * no file on disk has it, so the next run reads and hashes the file again.
 */
export const UNTRUSTED_MTIME = -1;

export type FileStatus = 'indexed' | 'skipped' | 'failed';

/** A file as stored: its last written state, with its id and element count. */
export interface FileRow extends FileUpdate {
  id: number;
  elementCount: number;
}

export interface ElementRow {
  vectorId: number;
  fileId: number;
  generation: number;
  type: string;
  name: string;
  access: string;
  startLine: number;
  endLine: number;
  /** The element's lines in its file, in bytes, [startByte, endByte); -1 when not recorded. */
  startByte: number;
  endByte: number;
  signature: string;
  description: string;
  documentHash: string;
}

/** Where a file's lines lie in its bytes as read (files/LineStarts is one). */
export interface LineBytes {
  /** The bytes of lines first..last (1-based, inclusive): [start, end). */
  range(first: number, last: number): { start: number; end: number };
}

/** A file's new state, written with its elements in one transaction. */
export interface FileUpdate {
  path: string;
  language: string | null;
  size: number;
  mtimeMs: number;
  hash: string | null;
  status: FileStatus;
  error: string | null;
}

/** A file as listed by `--status`: its recorded state (the hash decides when the mtime could not be trusted) and element count. */
export interface FileSummary extends FileUpdate {
  elements: number;
  /** The repository (root) it belongs to. */
  rootId: number;
}

/** An element's name, type and description, for picking queries from an index: three columns of its row. */
export type ElementSummary = Pick<ElementRow, 'type' | 'name' | 'description'>;

/** The embedder an index's vectors were made with: its id and the dimension of its vectors. */
export interface EmbedderRecord {
  id: string;
  dimension: number;
}

/** What the last complete run recorded in the index. */
export interface LastRun {
  finishedAt: string;
  mode: 'full' | 'paths' | 'since' | 'rebuild';
  durationMs: number;
  /** The analysis model asked for, or null when LLM analysis was off. */
  analysisModel: string | null;
  modelCalls: number;
}

/** A hit as a search reads it: its stored row's columns (its vector id as `id`) joined with its file's. */
export interface ElementRecord
  extends Pick<
    ElementRow,
    'fileId' | 'type' | 'name' | 'startLine' | 'endLine' | 'startByte' | 'endByte' | 'signature' | 'description'
  > {
  id: number;
  path: string;
  language: string | null;
  size: number;
  mtimeMs: number;
  hash: string | null;
  rootId: number;
}

/** For BM25 over whole files: how many elements of each file hold each query term. */
export interface FileTermCounts {
  /** For each query term: file id -> how many of the file's elements hold it. */
  perTerm: readonly ReadonlyMap<number, number>[];
  /** Elements per file, for the files any term occurs in. */
  sizes: ReadonlyMap<number, number>;
  /** Indexed files, and their mean number of elements. */
  files: number;
  averageSize: number;
}

/** A file a word occurs in: its indexed state and the word's encoded lines there. */
export interface OccurrenceFile {
  fileId: number;
  rootId: number;
  path: string;
  size: number;
  mtimeMs: number;
  hash: string | null;
  /** Encoded lines (text/occurrences.ts). */
  lines: string;
}

/** A repository of an index: a directory indexed under a name, with its own files, elements and lexical statistics. */
export interface Repository {
  id: number;
  name: string;
  /** The absolute path it was last indexed from. */
  root: string;
  /** The commit checked out when it was last indexed, when a git checkout. */
  commit: string | null;
  /** When its last run ended (ms since the epoch); null before its first run ended. */
  indexedAt: number | null;
}

export interface RepositoryCounts extends Repository {
  files: number;
  elements: number;
}
