/**
 * One indexing run's state, in one object (the run's "baton"): where it
 * writes (a RunWriter of either store), the embedder it writes with, the
 * files it found, the summary it fills, and the outcomes waiting to be
 * committed. The Indexer decides what to do; an IndexRun writes it down, a
 * batch of files at a time.
 */
import type { Enricher } from '../analysis/analyzer.js';
import type { FileAnalyzer } from './pool.js';
import type { LineStarts } from '../files/line-starts.js';
import type { ScannedFile } from '../files/scan.js';
import type { FileRow } from '../store/rows.js';
import type { FileWrite, RunWriter } from '../store/writes.js';
import type { ElementDocument } from '../vector/document.js';
import type { Embedder } from '../vector/embedder.js';
import type { EmbeddingQueue } from './embedding-queue.js';
import type { FileChange, IndexEvent, IndexSummary } from './events.js';

/** Files written per batch. */
const FILES_PER_COMMIT = 64;

/** What became of one file: written by the next commit. */
export interface FileOutcome {
  scanned: ScannedFile;
  row: FileRow | undefined;
  change: FileChange | 'unchanged' | 'skipped' | 'failed';
  hash: string | null;
  language: string | null;
  error: string | null;
  documents: ElementDocument[];
  vectors: Map<string, Float32Array>;
  mtimeMs: number;
  /** The file's line starts in its bytes as read: each element's byte range is recorded with it. */
  lineStarts?: LineStarts;
  /** Its words and their lines (text/occurrences.ts), for references. */
  occurrences?: Map<string, string>;
  /** Its text as analysed (credentials redacted), for a store that keeps it. */
  text?: string;
}

export interface IndexRunParts {
  writer: RunWriter;
  embedder: Embedder;
  /** The root's files as recorded before the run. */
  known: Map<string, FileRow>;
  summary: IndexSummary;
  signal: AbortSignal | undefined;
  queue: EmbeddingQueue;
  enricher: Enricher | undefined;
  /** Absent when no file needs analysing. */
  analyzer: FileAnalyzer | undefined;
  emit: (event: IndexEvent) => void;
}

export class IndexRun {
  readonly writer: RunWriter;
  readonly embedder: Embedder;
  readonly known: Map<string, FileRow>;
  readonly summary: IndexSummary;
  readonly signal: AbortSignal | undefined;
  readonly queue: EmbeddingQueue;
  readonly enricher: Enricher | undefined;
  readonly analyzer: FileAnalyzer | undefined;
  readonly #emit: (event: IndexEvent) => void;
  #batch: FileOutcome[] = [];
  /** Batches are written one after another, in the order they filled. */
  #writing: Promise<unknown> = Promise.resolve();
  #wrote = false;

  constructor(parts: IndexRunParts) {
    this.writer = parts.writer;
    this.embedder = parts.embedder;
    this.known = parts.known;
    this.summary = parts.summary;
    this.signal = parts.signal;
    this.queue = parts.queue;
    this.enricher = parts.enricher;
    this.analyzer = parts.analyzer;
    this.#emit = parts.emit;
  }

  /** Whether the run has changed the index. */
  get wrote(): boolean {
    return this.#wrote;
  }

  /** How many elements of each document a file has in the index: so many copies keep their vectors. */
  liveCopies(row: FileRow | undefined): Map<string, number> {
    const copies = new Map<string, number>();
    for (const hash of row ? this.writer.elementHashes(row.id) : []) copies.set(hash, (copies.get(hash) ?? 0) + 1);
    return copies;
  }

  /** Queues a file's outcome; a full batch is committed at once. */
  async add(outcome: FileOutcome): Promise<void> {
    this.#batch.push(outcome);
    if (this.#batch.length >= FILES_PER_COMMIT) await this.flush();
  }

  /** Commits the outcomes queued so far (after the batches before them). */
  flush(): Promise<void> {
    const outcomes = this.#batch;
    this.#batch = [];
    const done = this.#writing.then(() => this.commit(outcomes));
    this.#writing = done.catch(() => {});
    return done;
  }

  /** Writes files' outcomes in one batch, then reports them. */
  async commit(outcomes: readonly FileOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const { summary } = this;
    const written = await this.writer.write(outcomes.map(fileWrite));
    const events: IndexEvent[] = [];
    outcomes.forEach((outcome, i) => {
      const { scanned } = outcome;
      if (outcome.change === 'unchanged') {
        summary.files.unchanged++;
        events.push({ type: 'file-unchanged', path: scanned.path });
        return;
      }
      this.#wrote = true;
      const result = written[i]!;
      summary.elements.added += result.added;
      summary.elements.removed += result.removed;
      summary.elements.kept += result.kept;
      if (outcome.change === 'skipped') summary.files.skipped++;
      else if (outcome.change === 'failed') summary.files.failed++;
      else {
        summary.files[outcome.change]++;
        events.push({
          type: 'file-indexed',
          path: scanned.path,
          change: outcome.change,
          elements: outcome.documents.length,
          added: result.added,
          removed: result.removed,
          kept: result.kept,
          embedded: result.added,
        });
      }
    });
    for (const event of events) this.#emit(event);
  }

  /** Removes vanished files in one batch. */
  async removeDeleted(paths: readonly string[]): Promise<void> {
    const { summary, known } = this;
    const rows = paths.map((path) => known.get(path)).filter((row): row is FileRow => row !== undefined);
    if (rows.length === 0) return;
    const addedHashes = new Set<string>();
    for (const row of (await this.writer.files()).values())
      if (row.hash && !known.has(row.path)) addedHashes.add(row.hash);
    const removed = await this.writer.remove(rows.map((row) => row.id));
    this.#wrote = true;
    rows.forEach((row, i) => {
      // The same content under a new path: a rename, already indexed under its new name.
      if (row.hash && addedHashes.has(row.hash)) {
        summary.files.added--;
        summary.files.renamed++;
      } else summary.files.deleted++;
      summary.elements.removed += removed[i]!;
      this.#emit({ type: 'file-removed', path: row.path, removed: removed[i]! });
    });
  }
}

/** What a file's outcome asks of the store. */
function fileWrite(outcome: FileOutcome): FileWrite {
  const { scanned, row } = outcome;
  if (outcome.change === 'unchanged') return { kind: 'touch', row: row!, size: scanned.size, mtimeMs: outcome.mtimeMs };
  const status = outcome.change === 'skipped' ? 'skipped' : outcome.change === 'failed' ? 'failed' : 'indexed';
  return {
    kind: 'write',
    // A failed file keeps no hash, so the next run tries it again.
    update: {
      path: scanned.path,
      language: outcome.language,
      size: scanned.size,
      mtimeMs: outcome.mtimeMs,
      hash: status === 'failed' ? null : outcome.hash,
      status,
      error: outcome.error,
    },
    documents: outcome.documents,
    vectors: outcome.vectors,
    lineBytes: outcome.lineStarts,
    occurrences: outcome.occurrences,
    text: status === 'indexed' ? outcome.text : undefined,
  };
}

/**
 * The files in the order to start them: largest first, so that the longest
 * parses (a 9 MB bundle takes seconds) overlap the many small files instead
 * of running alone at the end of the run. Same sizes keep the scan's order.
 */
export function largestFirst<T extends { size: number }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => b.size - a.size);
}

/**
 * Calls `work` on each item, at most `width` at a time, in the items'
 * order. Takes no new item once a call has failed or the signal has
 * aborted, and waits for the calls under way. Returns why it stopped (the
 * error, or the abort's reason), or undefined when every item was done.
 */
export async function eachConcurrently<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  let next = 0;
  let stopped: unknown;
  const worker = async () => {
    while (next < items.length && stopped === undefined) {
      if (signal?.aborted) {
        stopped ??= signal.reason;
        return;
      }
      try {
        await work(items[next++]!);
      } catch (error) {
        stopped ??= error;
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return stopped;
}
