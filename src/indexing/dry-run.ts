/**
 * What an indexing run would do, before doing it: files, elements, and model
 * calls per language and directory, and an estimate of the time. The dry run
 * reads and parses the files that changed (that is how elements are counted)
 * but calls no model and writes nothing, not even the index directory.
 */
import type { CodeFile } from '../analysis/types.js';

/** Assumptions behind the estimate, stated in the report. */
export const DRY_RUN_ASSUMPTIONS = {
  /** One structured-output answer from a local 7B coder model for one file part. */
  modelCallMs: 4_000,
  /** One request of 32 documents to a local embedding model. */
  embeddingBatchMs: 400,
  /** The built-in embedder on one core (bench/indexing). */
  builtinDocsPerSecond: 17_000,
  /** Rows, FTS5 and the embedding cache (bench/indexing). */
  sqliteDocsPerSecond: 20_000,
} as const;

export interface DryRunGroup {
  files: number;
  elements: number;
  modelCalls: number;
}

export interface DryRunReport {
  root: string;
  indexDir: string;
  embedder: string;
  analysisModel: string | null;
  files: { scanned: number; unchanged: number; toIndex: number; toRemove: number; excluded: number; skipped: number };
  /** Elements in the files to index, and the documents among them that need a new vector. */
  elements: number;
  documentsToEmbed: number;
  calls: { model: number; embedding: number };
  byLanguage: Record<string, DryRunGroup>;
  byDirectory: Record<string, DryRunGroup>;
  estimate: {
    analysisMs: number;
    embeddingMs: number;
    modelMs: number;
    writeMs: number;
    totalMs: number;
    assumptions: string;
  };
  durationMs: number;
}

/** Accumulates per-file counts into the report's groups. */
export class DryRunTally {
  elements = 0;
  documentsToEmbed = 0;
  modelCalls = 0;
  skipped = 0;
  /** Files read and found equal to what is indexed. */
  sameContent = 0;
  readonly byLanguage: Record<string, DryRunGroup> = {};
  readonly byDirectory: Record<string, DryRunGroup> = {};

  /** `elements`: the file's documents (its elements and the chunks of code outside them), as the run will store them. */
  add(file: CodeFile, elements: number, documentsToEmbed: number, modelCalls: number): void {
    this.elements += elements;
    this.documentsToEmbed += documentsToEmbed;
    this.modelCalls += modelCalls;
    for (const [groups, key] of [
      [this.byLanguage, file.language],
      [this.byDirectory, topDirectory(file.path)],
    ] as const) {
      const group = (groups[key] ??= { files: 0, elements: 0, modelCalls: 0 });
      group.files++;
      group.elements += elements;
      group.modelCalls += modelCalls;
    }
  }
}

/** The time a run would take: the analysis as measured now, the rest from the stated rates. */
export function estimateRun(
  tally: DryRunTally,
  analysisMs: number,
  embedder: { builtin: boolean; batchSize: number; concurrency: number },
): { estimate: DryRunReport['estimate']; embeddingCalls: number } {
  const a = DRY_RUN_ASSUMPTIONS;
  const embeddingCalls = Math.ceil(tally.documentsToEmbed / embedder.batchSize);
  const embeddingMs = embedder.builtin
    ? (tally.documentsToEmbed / a.builtinDocsPerSecond) * 1000
    : (embeddingCalls * a.embeddingBatchMs) / embedder.concurrency;
  const modelMs = tally.modelCalls * a.modelCallMs;
  const writeMs = (tally.documentsToEmbed / a.sqliteDocsPerSecond) * 1000;
  const embedding = embedder.builtin
    ? `built-in embedder at ${a.builtinDocsPerSecond} documents/s`
    : `${a.embeddingBatchMs} ms per embedding request of ${embedder.batchSize}, ${embedder.concurrency} in flight`;
  const assumptions = `analysis as measured now; ${embedding}${tally.modelCalls ? `; ${a.modelCallMs / 1000} s per model call` : ''}`;
  // Model calls and embedding overlap analysis in a real run; the slowest stage sets the pace.
  const totalMs = Math.max(analysisMs, modelMs, embeddingMs) + writeMs;
  return {
    estimate: {
      analysisMs: Math.round(analysisMs),
      embeddingMs: Math.round(embeddingMs),
      modelMs,
      writeMs: Math.round(writeMs),
      totalMs: Math.round(totalMs),
      assumptions,
    },
    embeddingCalls,
  };
}

/** A file's directory, two levels deep at most (`src/store`), `.` at the root. */
function topDirectory(path: string): string {
  const parts = path.split('/').slice(0, -1);
  return parts.length === 0 ? '.' : parts.slice(0, 2).join('/');
}
