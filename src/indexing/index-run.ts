/**
 * One indexing run's state, in one object (the run's "baton"): the store it
 * writes, the embedder and generation it writes with, the files it found,
 * the summary it fills, and the outcomes waiting to be committed. The
 * Indexer decides what to do; an IndexRun writes it down, a batch of files
 * per transaction.
 */
import type { Enricher } from '../analysis/analyzer.js';
import type { FileAnalyzer } from './pool.js';
import type { LineStarts } from '../files/line-starts.js';
import type { ScannedFile } from '../files/scan.js';
import type { FileRow, IndexStore } from '../store/store.js';
import type { ElementDocument } from '../vector/document.js';
import type { Embedder } from '../vector/embedder.js';
import type { EmbeddingQueue } from './embedding-queue.js';
import type { FileChange, IndexEvent, IndexSummary } from './events.js';

/** Files written per transaction. */
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
}

export interface IndexRunParts {
  store: IndexStore;
  embedder: Embedder;
  rootId: number;
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
  readonly store: IndexStore;
  readonly embedder: Embedder;
  readonly rootId: number;
  /** The generation this run stamps on what it writes: one past the store's. */
  readonly generation: number;
  readonly known: Map<string, FileRow>;
  readonly summary: IndexSummary;
  readonly signal: AbortSignal | undefined;
  readonly queue: EmbeddingQueue;
  readonly enricher: Enricher | undefined;
  readonly analyzer: FileAnalyzer | undefined;
  readonly #emit: (event: IndexEvent) => void;
  #batch: FileOutcome[] = [];
  #wrote = false;

  constructor(parts: IndexRunParts) {
    this.store = parts.store;
    this.embedder = parts.embedder;
    this.rootId = parts.rootId;
    this.generation = parts.store.generation + 1;
    this.known = parts.known;
    this.summary = parts.summary;
    this.signal = parts.signal;
    this.queue = parts.queue;
    this.enricher = parts.enricher;
    this.analyzer = parts.analyzer;
    this.#emit = parts.emit;
  }

  /** Whether the run has changed the index (and so moved it to its generation). */
  get wrote(): boolean {
    return this.#wrote;
  }

  /** The hashes of the documents a file has in the index: they keep their vectors. */
  liveHashes(row: FileRow | undefined): Set<string> {
    return new Set(row ? this.store.elementsOfFile(row.id).map((element) => element.documentHash) : []);
  }

  /** Queues a file's outcome; a full batch is committed at once. */
  add(outcome: FileOutcome): void {
    this.#batch.push(outcome);
    if (this.#batch.length >= FILES_PER_COMMIT) this.flush();
  }

  /** Commits the outcomes queued so far. */
  flush(): void {
    const outcomes = this.#batch;
    this.#batch = [];
    this.commit(outcomes);
  }

  /** Writes files' outcomes in one transaction, then reports them. */
  commit(outcomes: readonly FileOutcome[]): void {
    if (outcomes.length === 0) return;
    const { store, summary } = this;
    const events: IndexEvent[] = [];
    store.transaction(() => {
      for (const outcome of outcomes) {
        const { scanned, row } = outcome;
        if (outcome.change === 'unchanged') {
          store.touchFile(row!.id, scanned.size, outcome.mtimeMs);
          summary.files.unchanged++;
          events.push({ type: 'file-unchanged', path: scanned.path });
          continue;
        }
        this.#beginWrite();
        const status = outcome.change === 'skipped' ? 'skipped' : outcome.change === 'failed' ? 'failed' : 'indexed';
        // A failed file keeps no hash, so the next run tries it again.
        const update = {
          path: scanned.path,
          language: outcome.language,
          size: scanned.size,
          mtimeMs: outcome.mtimeMs,
          hash: status === 'failed' ? null : outcome.hash,
          status,
          error: outcome.error,
        } as const;
        const written = store.writeFile(this.rootId, update, outcome.documents, this.generation, {
          lineBytes: outcome.lineStarts,
          occurrences: outcome.occurrences,
        });
        for (const { document } of written.added) {
          // Absent only for a hash the file already had (a second copy of a document): its vector is stored.
          const vector = outcome.vectors.get(document.hash);
          if (vector) store.putEmbedding(this.embedder.id, document.hash, vector);
        }
        summary.elements.added += written.added.length;
        summary.elements.removed += written.removed.length;
        summary.elements.kept += written.kept;
        if (status === 'skipped') summary.files.skipped++;
        else if (status === 'failed') summary.files.failed++;
        else {
          summary.files[outcome.change as FileChange]++;
          events.push({
            type: 'file-indexed',
            path: scanned.path,
            change: outcome.change as FileChange,
            elements: outcome.documents.length,
            added: written.added.length,
            removed: written.removed.length,
            kept: written.kept,
            embedded: written.added.length,
          });
        }
      }
    });
    for (const event of events) this.#emit(event);
  }

  /** Removes vanished files in one transaction (their vectors leave FAISS at the next checkpoint or open). */
  removeDeleted(paths: readonly string[]): void {
    if (paths.length === 0) return;
    const { store, summary, known } = this;
    const addedHashes = new Set<string>();
    for (const row of store.files(this.rootId).values())
      if (row.hash && !known.has(row.path)) addedHashes.add(row.hash);
    store.transaction(() => {
      this.#beginWrite();
      for (const path of paths) {
        const row = known.get(path);
        if (!row) continue;
        const removed = store.deleteFile(row.id, this.generation);
        // The same content under a new path: a rename, already indexed under its new name.
        if (row.hash && addedHashes.has(row.hash)) {
          summary.files.added--;
          summary.files.renamed++;
        } else summary.files.deleted++;
        summary.elements.removed += removed.length;
        this.#emit({ type: 'file-removed', path, removed: removed.length });
      }
    });
  }

  /** The first write of a run moves the index to the run's generation. */
  #beginWrite(): void {
    if (!this.#wrote) this.store.meta.generation = this.generation;
    this.#wrote = true;
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
