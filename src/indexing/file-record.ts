/**
 * One file through an indexing run, in one record. The plan gives it (the file as scanned, and
 * as the index holds it), and each stage fills its part in turn (file-stages.ts): read, then
 * analyse, then embed; the run then writes it (index-run.ts), in the store's shape built here
 * and nowhere else (fileWrite). A stage that settles the file (the content the index holds, a
 * file skipped or failed) leaves the later parts empty, and the later stages are not run.
 */
import type { CodeFile, SkippedFile } from '../analysis/types.js';
import type { LineStarts } from '../files/line-starts.js';
import type { ScannedFile } from '../files/scan.js';
import type { FileRow } from '../store/rows.js';
import type { FileWrite } from '../store/writes.js';
import type { ElementDocument } from '../vector/document.js';
import type { FileChange } from './events.js';

export interface FileRecord {
  // From the plan.
  readonly scanned: ScannedFile;
  /** Its indexed state before the run, if any. */
  readonly row: FileRow | undefined;
  /** What the run makes of it: added or changed, until a stage settles it otherwise. */
  change: FileChange | 'unchanged' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  error: string | null;
  /** What the analysis said of a file it skipped (binary, generated, too long a line), or of one over the size limit. */
  skipped?: SkippedFile;

  // Read: its bytes, hashed, and analysed by syntax on the thread that read them.
  hash: string | null;
  /** The mtime to record: the scan's, or UNTRUSTED_MTIME when it cannot vouch for the content read. */
  mtimeMs: number;
  /** Where its lines lie in its bytes as read: each element's byte range is recorded with it. */
  lineStarts?: LineStarts;
  /** Its text as analysis saw it: credentials redacted, line breaks kept (a store that keeps text keeps this). */
  text?: string;
  /** Its elements: from the syntax tree, then as the model described them (analyse). */
  code?: CodeFile;

  // Analyse: what the run indexes of it.
  language: string | null;
  documents: ElementDocument[];
  /** Its words and their lines (text/occurrences.ts), for references. */
  occurrences?: Map<string, string>;

  // Embed: the vectors of the documents the index does not hold yet, by document hash.
  vectors: Map<string, Float32Array>;
}

/** A file the plan gives a run, before any stage. */
export function newFileRecord(scanned: ScannedFile, row: FileRow | undefined): FileRecord {
  return {
    scanned,
    row,
    change: row ? 'changed' : 'added',
    error: null,
    hash: null,
    mtimeMs: scanned.mtimeMs,
    language: null,
    documents: [],
    vectors: new Map(),
  };
}

/** What a file's record asks of the store (the write stage's one translation). */
export function fileWrite(record: FileRecord): FileWrite {
  const { scanned, row } = record;
  if (record.change === 'unchanged') return { kind: 'touch', row: row!, size: scanned.size, mtimeMs: record.mtimeMs };
  const status = record.change === 'skipped' ? 'skipped' : record.change === 'failed' ? 'failed' : 'indexed';
  return {
    kind: 'write',
    // A failed file keeps no hash, so the next run tries it again.
    update: {
      path: scanned.path,
      language: record.language,
      size: scanned.size,
      mtimeMs: record.mtimeMs,
      hash: status === 'failed' ? null : record.hash,
      status,
      error: record.error,
    },
    documents: record.documents,
    vectors: record.vectors,
    lineBytes: record.lineStarts,
    occurrences: record.occurrences,
    text: status === 'indexed' ? record.text : undefined,
  };
}
