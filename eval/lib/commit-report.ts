/**
 * The commit sets' tables: file-level MRR, then hit@1 / hit@10, for the
 * whole-file BM25 baseline (over every indexed file, and over the source
 * files alone) and for each search mode (other files taken out, and left
 * in), one row per set and subject variant; and a verdict per row.
 */
import type { RetrievalScores } from '../../src/internal.js';
import { COMMIT_CORPORA, type CommitHalf } from './commit-corpora.js';
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

export const COMMIT_MRR_HEADER = [
  'set',
  'half',
  'subjects',
  'queries',
  'files (source)',
  ...COLUMNS.map((c) => c.label),
];
export const COMMIT_HITS_HEADER = ['set', 'half', 'subjects', ...COLUMNS.map((c) => c.label)];

/** The half a set belongs to (eval/lib/commit-corpora.ts); a set not listed there counts as held out. */
export function halfOf(set: string): CommitHalf {
  return COMMIT_CORPORA.find((corpus) => corpus.set === set)?.half ?? 'held-out';
}

/** The development half first, then the held-out half, each in the order given. */
function byHalf(reports: readonly CommitSetReport[]): CommitSetReport[] {
  return [
    ...reports.filter((report) => halfOf(report.name) === 'development'),
    ...reports.filter((report) => halfOf(report.name) !== 'development'),
  ];
}

function eachVariant<T>(
  reports: readonly CommitSetReport[],
  row: (report: CommitSetReport, variant: CommitSetReport['variants'][number]) => T,
): T[] {
  return byHalf(reports).flatMap((report) => report.variants.map((variant) => row(report, variant)));
}

/** MRR per column. */
export function commitMrrRows(reports: readonly CommitSetReport[]): string[][] {
  return eachVariant(reports, (report, variant) => [
    report.name,
    halfOf(report.name),
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
    halfOf(report.name),
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

/**
 * Per half: the mean over its rows (sets × subject forms) of the whole-file
 * BM25 over source files and of hybrid left in, and how many rows hybrid
 * is below the bar.
 */
export function commitHalfSummaries(reports: readonly CommitSetReport[]): string[] {
  const halves: CommitHalf[] = ['development', 'held-out'];
  return halves.flatMap((half) => {
    const rows = reports
      .filter((report) => halfOf(report.name) === half)
      .flatMap((report) => report.variants.map((variant) => variant.scores));
    if (rows.length === 0) return [];
    const mean = (pick: (scores: (typeof rows)[number]) => number) =>
      rows.reduce((sum, scores) => sum + pick(scores), 0) / rows.length;
    const below = rows.filter((scores) => scores.hybrid.all.mrr < scores.bm25.source.mrr).length;
    return [
      `${half} half (${rows.length} rows): mean whole-file BM25 over source files ${f(mean((s) => s.bm25.source.mrr))}, ` +
        `hybrid left in ${f(mean((s) => s.hybrid.all.mrr))}, source only ${f(mean((s) => s.hybrid.source.mrr))}; ` +
        `hybrid left in below the bar on ${below} of ${rows.length}`,
    ];
  });
}
