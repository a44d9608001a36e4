/**
 * The public code-search benchmark's protocol (MinishLab/semble's
 * `benchmarks/`), reproduced exactly so that figures compare with the
 * published ones:
 *
 * - the top 10 results count as returned: two chunks of one file take two places;
 * - targets are `relevant` and `secondary` together, each with gain 1;
 * - a target is found at the rank of the first result whose path matches it
 *   (equal, or one ends with `/` and the other) and, when the target has a
 *   line span, whose lines overlap it; targets found at one rank count once;
 * - DCG sums 1 / log2(rank + 1); the ideal puts min(10, targets) at ranks 1, 2, …;
 * - a repository's figure is the mean over its queries; the headline, per
 *   language and per category figures are means over repositories.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvaluationError } from './errors.js';

export const BENCHMARK_DEPTH = 10;

export interface BenchmarkTarget {
  path: string;
  startLine?: number;
  endLine?: number;
}

export interface BenchmarkQuery {
  query: string;
  category: string;
  targets: BenchmarkTarget[];
}

export interface BenchmarkRepo {
  name: string;
  language: string;
  url: string;
  revision: string;
  /** The folder that is indexed and searched, relative to the checkout ('' for the whole). */
  benchmarkRoot: string;
}

/** A returned result as the protocol sees it. */
export interface BenchmarkHit {
  path: string;
  startLine: number;
  endLine: number;
}

/** repos.json: every repository with its pinned revision and benchmark root. */
export function loadBenchmarkRepos(file: string): BenchmarkRepo[] {
  const raw = readJson(file);
  if (!Array.isArray(raw))
    throw new EvaluationError(`${file} must hold a JSON array of repositories`, 'BAD_BENCHMARK_DATA');
  return raw.map((item: unknown, i) => {
    const repo = item as Record<string, unknown>;
    for (const key of ['name', 'language', 'url', 'revision']) {
      if (typeof repo[key] !== 'string' || repo[key] === '')
        throw new EvaluationError(`${file}: entry ${i} has no ${key}`, 'BAD_BENCHMARK_DATA');
    }
    const root = repo.benchmark_root;
    if (root !== undefined && typeof root !== 'string')
      throw new EvaluationError(`${file}: entry ${i} has a benchmark_root that is not a string`, 'BAD_BENCHMARK_DATA');
    return {
      name: repo.name as string,
      language: repo.language as string,
      url: repo.url as string,
      revision: repo.revision as string,
      benchmarkRoot: root ?? '',
    };
  });
}

/** annotations/<repo>.json: `[{query, relevant[], secondary[], category}]`; a target is a path or `{path, start_line, end_line}`. */
export function loadBenchmarkQueries(file: string): BenchmarkQuery[] {
  const raw = readJson(file);
  if (!Array.isArray(raw)) throw new EvaluationError(`${file} must hold a JSON array of queries`, 'BAD_BENCHMARK_DATA');
  return raw.map((item: unknown, i) => {
    const entry = item as Record<string, unknown>;
    if (typeof entry.query !== 'string' || entry.query.trim() === '')
      throw new EvaluationError(`${file}: query ${i} has no text`, 'BAD_BENCHMARK_DATA');
    const targets = [...asList(entry.relevant), ...asList(entry.secondary)].map((target, j) =>
      parseTarget(target, `${file}: query ${i}, target ${j}`),
    );
    if (targets.length === 0)
      throw new EvaluationError(`${file}: query ${i} ("${entry.query}") has no targets`, 'BAD_BENCHMARK_DATA');
    return {
      query: entry.query,
      category: typeof entry.category === 'string' ? entry.category : inferCategory(entry.query),
      targets,
    };
  });
}

export function annotationsFile(directory: string, repo: string): string {
  return join(directory, `${repo}.json`);
}

/** Either path is the other, or ends with `/` and the other (absolute against relative paths). */
export function pathMatches(path: string, target: string): boolean {
  const a = path.replace(/\\/g, '/');
  const b = target.replace(/\\/g, '/');
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

export function hitMatches(hit: BenchmarkHit, target: BenchmarkTarget): boolean {
  if (!pathMatches(hit.path, target.path)) return false;
  if (target.startLine === undefined || target.endLine === undefined) return true;
  return !(hit.endLine < target.startLine || hit.startLine > target.endLine);
}

/** NDCG@10 of one result list against one query's targets. */
export function ndcgAt10(hits: readonly BenchmarkHit[], targets: readonly BenchmarkTarget[]): number {
  if (targets.length === 0) return 0;
  const found = new Set<number>();
  for (const target of targets) {
    const rank = hits.slice(0, BENCHMARK_DEPTH).findIndex((hit) => hitMatches(hit, target)) + 1;
    if (rank > 0) found.add(rank);
  }
  let dcg = 0;
  for (const rank of found) dcg += 1 / Math.log2(rank + 1);
  let ideal = 0;
  for (let rank = 1; rank <= Math.min(BENCHMARK_DEPTH, targets.length); rank++) ideal += 1 / Math.log2(rank + 1);
  return dcg / ideal;
}

export interface RepoScore {
  repo: string;
  language: string;
  ndcg10: number;
  byCategory: Record<string, number>;
  queries: number;
}

/** A repository's figures: the mean over its queries, overall and by category. */
export function scoreRepo(repo: BenchmarkRepo, outcomes: readonly { category: string; ndcg10: number }[]): RepoScore {
  const byCategory: Record<string, number[]> = {};
  for (const outcome of outcomes) (byCategory[outcome.category] ??= []).push(outcome.ndcg10);
  return {
    repo: repo.name,
    language: repo.language,
    ndcg10: mean(outcomes.map((outcome) => outcome.ndcg10)),
    byCategory: Object.fromEntries(Object.entries(byCategory).map(([category, values]) => [category, mean(values)])),
    queries: outcomes.length,
  };
}

export interface BenchmarkSummary {
  /** Mean over repositories. */
  ndcg10: number;
  byLanguage: Record<string, number>;
  /** Means over the repositories that have queries of the category. */
  byCategory: Record<string, number>;
  repos: number;
}

export function summarize(scores: readonly RepoScore[]): BenchmarkSummary {
  const byLanguage: Record<string, number[]> = {};
  const byCategory: Record<string, number[]> = {};
  for (const score of scores) {
    (byLanguage[score.language] ??= []).push(score.ndcg10);
    for (const [category, value] of Object.entries(score.byCategory)) (byCategory[category] ??= []).push(value);
  }
  const means = (groups: Record<string, number[]>) =>
    Object.fromEntries(
      Object.entries(groups)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, values]) => [key, mean(values)]),
    );
  return {
    ndcg10: mean(scores.map((score) => score.ndcg10)),
    byLanguage: means(byLanguage),
    byCategory: means(byCategory),
    repos: scores.length,
  };
}

/** The benchmark's own rule for annotations without a category. */
function inferCategory(query: string): string {
  if (!query.trim().includes(' ')) return 'symbol';
  return /^how\s/i.test(query.trim()) ? 'architecture' : 'semantic';
}

function parseTarget(raw: unknown, where: string): BenchmarkTarget {
  if (typeof raw === 'string' && raw !== '') return { path: raw };
  const target = raw as Record<string, unknown> | null;
  if (!target || typeof target !== 'object' || typeof target.path !== 'string' || target.path === '')
    throw new EvaluationError(`${where} is neither a path nor {path, start_line, end_line}`, 'BAD_BENCHMARK_DATA');
  const line = (value: unknown) => (value === undefined || value === null ? undefined : Number(value));
  const startLine = line(target.start_line);
  const endLine = line(target.end_line);
  if (
    (startLine !== undefined && !Number.isInteger(startLine)) ||
    (endLine !== undefined && !Number.isInteger(endLine))
  )
    throw new EvaluationError(`${where} has a line span that is not whole numbers`, 'BAD_BENCHMARK_DATA');
  return {
    path: target.path,
    ...(startLine !== undefined ? { startLine } : {}),
    ...(endLine !== undefined ? { endLine } : {}),
  };
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new EvaluationError(`cannot read ${file}: ${(error as Error).message}`, 'BAD_BENCHMARK_DATA');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new EvaluationError(`${file} is not valid JSON: ${(error as Error).message}`, 'BAD_BENCHMARK_DATA');
  }
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}
