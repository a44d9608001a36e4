/** What an indexing run reports while it works. The library emits these; the CLIs render them. */
import type { AnalysisEvent } from '../analysis/events.js';
import type { SkipReason } from '../analysis/types.js';
import type { ExcludeReason } from '../files/rules.js';
import type { VectorIndexEvent } from '../store/open.js';

export type FileChange = 'added' | 'changed' | 'renamed';

export type IndexEvent =
  | {
      type: 'run-start';
      root: string;
      indexDir: string;
      embedder: string;
      mode: 'full' | 'paths' | 'since' | 'rebuild';
    }
  /** The scan is done: how many files need reading, of how many. */
  | { type: 'scan-done'; files: number; candidates: number; deleted: number; excluded: number }
  /** A first index of a linked git worktree started from a copy of its main worktree's index (seed.ts). */
  | { type: 'index-copied'; from: string }
  /** The main worktree's index could not be copied (why): the run indexes afresh. */
  | { type: 'index-not-copied'; from: string; why: string }
  | { type: 'excluded'; path: string; reason: ExcludeReason }
  /** One file done: its elements, how many were embedded now and how many reused. */
  | {
      type: 'file-indexed';
      path: string;
      change: FileChange;
      elements: number;
      added: number;
      removed: number;
      kept: number;
      embedded: number;
    }
  /** Read and hashed, and its content was unchanged (only its mtime moved). */
  | { type: 'file-unchanged'; path: string }
  | { type: 'file-skipped'; path: string; reason: SkipReason; detail: string }
  | { type: 'file-failed'; path: string; error: string }
  | { type: 'file-removed'; path: string; removed: number }
  /** One more file of the run's `total` is done (`path`, whatever became of it). */
  | { type: 'progress'; done: number; total: number; path: string }
  | { type: 'analysis'; event: AnalysisEvent }
  | { type: 'vector-index'; event: VectorIndexEvent }
  | { type: 'run-aborted'; reason: string }
  | { type: 'run-done'; summary: IndexSummary };

export interface IndexSummary {
  root: string;
  indexDir: string;
  embedder: string;
  generation: number;
  files: {
    scanned: number;
    unchanged: number;
    added: number;
    changed: number;
    renamed: number;
    deleted: number;
    skipped: number;
    failed: number;
  };
  elements: { total: number; added: number; removed: number; kept: number };
  /** Documents embedded in this run, and those whose vector came from the cache. */
  embeddings: { computed: number; cached: number };
  /** Requests to the embedder and to the analysis model in this run. */
  calls: { embedding: number; model: number };
  index: { description: string; vectors: number; written: boolean };
  durationMs: number;
}

/** What the last complete run recorded in the index (kept by the store's metadata). */
export type { LastRun } from '../store/rows.js';
