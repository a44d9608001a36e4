/**
 * The shapes of the rows the store reads and writes: files and elements as
 * stored, a file's new state, and the summaries listed for `--status` and
 * for picking queries. Apart from the store so that a reader of the types
 * need not read the SQL.
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
