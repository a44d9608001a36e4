/**
 * One indexing run, in one object: the store's side of it (a StoreRun of either store), the
 * embedder and the analysis it works with, the files the index held before it, the summary it
 * fills, and the files waiting to be written. The stages (file-stages.ts) read from it; it
 * writes their records (file-record.ts), a batch of files at a time, and removes the vanished
 * files.
 */
import type { Enricher } from '../analysis/analyzer.js';
import type { FileRow } from '../store/rows.js';
import type { StoreRun } from '../store/store.js';
import type { Embedder } from '../vector/embedder.js';
import type { EmbeddingQueue } from './embedding-queue.js';
import type { IndexEvent, IndexSummary } from './events.js';
import { type FileRecord, fileWrite } from './file-record.js';
import type { FileAnalyzer } from './pool.js';

/** Files written per batch. */
const FILES_PER_COMMIT = 64;

export class IndexRun {
  /** Where it writes. */
  readonly store: StoreRun;
  readonly embedder: Embedder;
  /** The repository's files as the index held them before the run. */
  readonly known: Map<string, FileRow>;
  readonly summary: IndexSummary;
  readonly signal: AbortSignal | undefined;
  readonly queue: EmbeddingQueue;
  readonly enricher: Enricher | undefined;
  /** Absent when no file needs analysing. */
  readonly analyzer: FileAnalyzer | undefined;
  /** Files over this size are not read. */
  readonly maxBytes: number;
  readonly emit: (event: IndexEvent) => void;
  #batch: FileRecord[] = [];
  /** Batches are written one after another, in the order they filled. */
  #writing: Promise<unknown> = Promise.resolve();
  #wrote = false;

  constructor(parts: {
    store: StoreRun;
    embedder: Embedder;
    known: Map<string, FileRow>;
    summary: IndexSummary;
    signal: AbortSignal | undefined;
    queue: EmbeddingQueue;
    enricher: Enricher | undefined;
    analyzer: FileAnalyzer | undefined;
    maxBytes: number;
    emit: (event: IndexEvent) => void;
  }) {
    this.store = parts.store;
    this.embedder = parts.embedder;
    this.known = parts.known;
    this.summary = parts.summary;
    this.signal = parts.signal;
    this.queue = parts.queue;
    this.enricher = parts.enricher;
    this.analyzer = parts.analyzer;
    this.maxBytes = parts.maxBytes;
    this.emit = parts.emit;
  }

  /** Whether the run has changed the index. */
  get wrote(): boolean {
    return this.#wrote;
  }

  /** How many elements of each document a file has in the index: so many copies keep their vectors. */
  liveCopies(row: FileRow | undefined): Map<string, number> {
    const copies = new Map<string, number>();
    for (const hash of row ? this.store.elementHashes(row.id) : []) copies.set(hash, (copies.get(hash) ?? 0) + 1);
    return copies;
  }

  /** Write: queues a file's record; a full batch is committed at once. */
  async write(record: FileRecord): Promise<void> {
    this.#batch.push(record);
    if (this.#batch.length >= FILES_PER_COMMIT) await this.flush();
  }

  /** Commits the records queued so far (after the batches before them). */
  flush(): Promise<void> {
    const records = this.#batch;
    this.#batch = [];
    const done = this.#writing.then(() => this.commit(records));
    this.#writing = done.catch(() => {});
    return done;
  }

  /** Writes files' records in one batch, then reports them. */
  async commit(records: readonly FileRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { summary } = this;
    const written = await this.store.write(records.map(fileWrite));
    const events: IndexEvent[] = [];
    records.forEach((record, i) => {
      const { scanned } = record;
      if (record.change === 'unchanged') {
        summary.files.unchanged++;
        events.push({ type: 'file-unchanged', path: scanned.path });
        return;
      }
      this.#wrote = true;
      const result = written[i]!;
      summary.elements.added += result.added;
      summary.elements.removed += result.removed;
      summary.elements.kept += result.kept;
      if (record.change === 'skipped') summary.files.skipped++;
      else if (record.change === 'failed') summary.files.failed++;
      else {
        summary.files[record.change]++;
        events.push({
          type: 'file-indexed',
          path: scanned.path,
          change: record.change,
          elements: record.documents.length,
          added: result.added,
          removed: result.removed,
          kept: result.kept,
          embedded: result.added,
        });
      }
    });
    for (const event of events) this.emit(event);
  }

  /** Removes vanished files in one batch. */
  async removeDeleted(paths: readonly string[]): Promise<void> {
    const { summary, known } = this;
    const rows = paths.map((path) => known.get(path)).filter((row): row is FileRow => row !== undefined);
    if (rows.length === 0) return;
    const addedHashes = new Set<string>();
    for (const row of (await this.store.files()).values())
      if (row.hash && !known.has(row.path)) addedHashes.add(row.hash);
    const removed = await this.store.remove(rows.map((row) => row.id));
    this.#wrote = true;
    rows.forEach((row, i) => {
      // The same content under a new path: a rename, already indexed under its new name.
      if (row.hash && addedHashes.has(row.hash)) {
        summary.files.added--;
        summary.files.renamed++;
      } else summary.files.deleted++;
      summary.elements.removed += removed[i]!;
      this.emit({ type: 'file-removed', path: row.path, removed: removed[i]! });
    });
  }
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
