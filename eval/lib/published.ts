/**
 * The figures other tools published on the benchmark
 * (../shared/semble-benchmark/published-figures.json), summarised over the
 * same repositories as a run of ours, so that the tables compare like with like.
 */
import { readFileSync } from 'node:fs';
import { summarize, type BenchmarkSummary, type RepoScore } from '../../src/eval/benchmark.js';

interface PublishedRepo {
  language: string;
  ndcg10: number;
  by_category?: Record<string, number>;
}

export interface PublishedFigures {
  methods: Record<string, { repos: Record<string, PublishedRepo> }>;
}

/** The methods shown beside ours, best known first. */
export const PUBLISHED_METHODS: readonly { key: string; label: string }[] = [
  { key: 'semble', label: 'semble (static model + BM25 + ranking)' },
  { key: 'semble-bm25+rank', label: 'semble, BM25 + ranking, no model' },
  { key: 'cre-hybrid', label: 'CodeRankEmbed hybrid (137M)' },
  { key: 'cre', label: 'CodeRankEmbed alone' },
  { key: 'bm25-raw', label: 'raw BM25 over chunks' },
  { key: 'colgrep', label: 'ColGREP' },
  { key: 'ck', label: 'ck (bge-small)' },
];

export function loadPublished(file: string): PublishedFigures {
  return JSON.parse(readFileSync(file, 'utf8')) as PublishedFigures;
}

/** A method's summary over the named repositories; undefined when it published none of them. */
export function publishedSummary(
  figures: PublishedFigures,
  method: string,
  repos: readonly string[],
): BenchmarkSummary | undefined {
  const published = figures.methods[method]?.repos ?? {};
  const scores: RepoScore[] = repos.flatMap((name) => {
    const repo = published[name];
    return repo
      ? [{ repo: name, language: repo.language, ndcg10: repo.ndcg10, byCategory: repo.by_category ?? {}, queries: 0 }]
      : [];
  });
  return scores.length > 0 ? summarize(scores) : undefined;
}
