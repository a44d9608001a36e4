/**
 * The commit sets' tables: file-level MRR, then hit@1 / hit@10, for the
 * whole-file BM25 baseline (over every indexed file, and over the source
 * files alone) and for each search mode (other files taken out, and left
 * in), one row per set and subject variant; and a verdict per row.
 */
import type { RetrievalScores } from '../../src/internal.js';
import { COMMIT_MODES, type CommitSetReport, type Method, type Scope } from './commit-eval.js';

const COLUMNS: readonly { method: Method; scope: Scope; label: string }[] = [
  { method: 'bm25', scope: 'all', label: 'BM25 all files' },
  { method: 'bm25', scope: 'source', label: 'BM25 source' },
  ...(['source', 'all'] as const).flatMap((scope) =>
    COMMIT_MODES.map((mode) => ({
      method: mode,
      scope,
      label: `${mode} ${scope === 'source' ? 'source' : 'left in'}`,
    })),
  ),
];

const f = (value: number) => value.toFixed(3);

export const COMMIT_MRR_HEADER = ['set', 'subjects', 'queries', 'files (source)', ...COLUMNS.map((c) => c.label)];
export const COMMIT_HITS_HEADER = ['set', 'subjects', ...COLUMNS.map((c) => c.label)];

function eachVariant<T>(
  reports: readonly CommitSetReport[],
  row: (report: CommitSetReport, variant: CommitSetReport['variants'][number]) => T,
): T[] {
  return reports.flatMap((report) => report.variants.map((variant) => row(report, variant)));
}

/** MRR per column. */
export function commitMrrRows(reports: readonly CommitSetReport[]): string[][] {
  return eachVariant(reports, (report, variant) => [
    report.name,
    variant.variant,
    String(variant.queries),
    `${report.files.all.toLocaleString('en-US')} (${report.files.source.toLocaleString('en-US')})`,
    ...COLUMNS.map(({ method, scope }) => f(variant.scores[method][scope].mrr)),
  ]);
}

/** hit@1 / hit@10 per column. */
export function commitHitRows(reports: readonly CommitSetReport[]): string[][] {
  const cell = (scores: RetrievalScores) => `${f(scores.hitAt1)} / ${f(scores.hitAt10)}`;
  return eachVariant(reports, (report, variant) => [
    report.name,
    variant.variant,
    ...COLUMNS.map(({ method, scope }) => cell(variant.scores[method][scope])),
  ]);
}

/**
 * Hybrid search against the whole-file BM25 over the source files, per set and variant: with the
 * other files taken out of its ranking, and left in (as users get it).
 */
export function commitVerdicts(reports: readonly CommitSetReport[]): string[] {
  return eachVariant(reports, (report, variant) => {
    const bm25 = variant.scores.bm25.source.mrr;
    const against = (mrr: number) =>
      `${f(mrr)} (${bm25 > 0 ? `${mrr >= bm25 ? '+' : ''}${(((mrr - bm25) / bm25) * 100).toFixed(1)}%` : 'n/a'}${mrr >= bm25 ? '' : ', below'})`;
    return `${report.name} (${variant.variant}): whole-file BM25 ${f(bm25)}; hybrid ${against(variant.scores.hybrid.source.mrr)} source only, ${against(variant.scores.hybrid.all.mrr)} left in`;
  });
}

/** Which repository and snapshot each set indexed, for the line under the tables. */
export function commitSources(reports: readonly CommitSetReport[]): string {
  return reports
    .map(
      (report) =>
        `${report.name}: ${report.source.repository.replace('https://github.com/', '')} (${report.source.language}) at ${report.source.commit.slice(0, 12)}, ${report.elements.toLocaleString('en-US')} elements`,
    )
    .join('; ');
}
