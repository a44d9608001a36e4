/**
 * "Which file do I change?": an issue, a bug report or a request, answered
 * with ranked files and the evidence for each. The whole text is read
 * (issue-reading.ts: tracebacks, paths, dotted names, names in code, error
 * messages, prose); an element search of it (its title, errors, names and
 * prose, within the query limit) gives each file the rank of its elements;
 * the index gives the rest (file-evidence.ts); file-ranking.ts weighs it.
 */
import { join } from 'node:path';
import type { Snapshot } from '../../store/reads.js';
import type { SearchFilters } from '../filters.js';
import type { SearchMode } from '../response.js';
import type { SearchScope } from '../scopes.js';
import { MAX_K, MAX_QUERY_LENGTH, validateK, validateMode, validateQuery } from '../validate.js';
import { fileKey, gatherEvidence, type FeatureName, type FileCandidate } from './file-evidence.js';
import { DEFAULT_FILE_WEIGHTS, rankFiles, type FileWeights } from './file-ranking.js';
import { readIssue, type IssueReading } from './issue-reading.js';
import { MAX_ISSUE_LENGTH } from './limits.js';

/** The characters of an issue its element search reads (elementQuery). */
const ELEMENT_QUERY_LENGTH = 600;

export { MAX_ISSUE_LENGTH } from './limits.js';

export interface FileSearchOptions extends SearchFilters {
  /** Files wanted, 1 to 100. Default 10. */
  k?: number;
  /** How the element search inside it runs (default hybrid). */
  mode?: SearchMode;
  /** Only these repositories of the index, by name (default: all of them). */
  repos?: readonly string[];
  /** Add each file's features, scaled, to its result (default false). */
  explain?: boolean;
  /** Other weights for the evidence (default DEFAULT_FILE_WEIGHTS; for evaluation). */
  weights?: Partial<FileWeights>;
}

/** One kind of evidence for a file, in words (`defines CountVectorizer`, `in the traceback (fit)`). */
export interface FileEvidence {
  kind: FeatureName;
  said: string[];
}

export interface FileResult {
  repo: string;
  /** Relative to the repository's root, with forward slashes. */
  path: string;
  absolutePath: string;
  score: number;
  /** What points at it, the strongest kind first. */
  evidence: FileEvidence[];
  /**
   * With `explain`: each feature scaled to the best file's (0 to 1), and the factor for what the
   * file is for (`prior`: from its roles' product `roles` and whether it is `code`).
   */
  explain?: { features: Partial<Record<FeatureName, number>>; prior: number; roles: number; code: boolean };
}

export interface FileSearchResponse {
  /** The text's first line (an issue's title), and its length. */
  title: string;
  length: number;
  requestedMode: SearchMode;
  mode: SearchMode;
  fallback?: { reason: string };
  files: FileResult[];
  timings: { elementsMs: number; evidenceMs: number; totalMs: number };
}

/** What a file search needs of a Searcher: an element search, and one snapshot's reads of a scope. */
export interface FileSearchHost {
  search(
    query: string,
    options: SearchFilters & { k: number; mode: SearchMode; snippet: false; repos?: readonly string[] },
  ): Promise<{
    mode: SearchMode;
    fallback?: { reason: string };
    results: { repo: string; path: string; name: string; score: number }[];
  }>;
  readScope<T>(
    repos: readonly string[] | undefined,
    work: (scope: SearchScope, snapshot: Snapshot, place: FilePlaces) => Promise<T>,
  ): Promise<T>;
}

/** Where each repository is, by root id: its name and directory. */
export interface FilePlaces {
  names: ReadonlyMap<number, string>;
  roots: ReadonlyMap<number, string>;
}

export async function searchFiles(
  host: FileSearchHost,
  text: string,
  options: FileSearchOptions = {},
): Promise<FileSearchResponse> {
  const started = performance.now();
  const whole = validateQuery(text, MAX_ISSUE_LENGTH);
  const k = validateK(options.k);
  const requestedMode = validateMode(options.mode);
  const weights = { ...DEFAULT_FILE_WEIGHTS, ...options.weights };
  const issue = readIssue(whole);
  const filters: SearchFilters = {
    ...(options.path !== undefined ? { path: options.path } : {}),
    ...(options.language !== undefined ? { language: options.language } : {}),
    ...(options.type !== undefined ? { type: options.type } : {}),
  };

  const elements = await host.search(elementQuery(issue), {
    ...filters,
    k: MAX_K,
    mode: requestedMode,
    snippet: false,
    ...(options.repos ? { repos: options.repos } : {}),
  });
  const elementsMs = performance.now() - started;

  const { ranked, places } = await host.readScope(options.repos, async (scope, snapshot, places) => {
    const { candidates, files } = await gatherEvidence({ ...scope, generation: snapshot.generation }, issue, filters);
    addElementEvidence(candidates, elements.results, files, places);
    return { ranked: rankFiles(candidates.values(), weights), places };
  });
  const files = ranked.slice(0, k).map(({ candidate, score, scaled, prior, roles, code }): FileResult => {
    const { file } = candidate;
    const evidence = (Object.keys(candidate.evidence) as FeatureName[])
      .sort((a, b) => weights[b] * (scaled[b] ?? 0) - weights[a] * (scaled[a] ?? 0))
      .map((kind) => ({ kind, said: candidate.evidence[kind]! }));
    return {
      repo: places.names.get(file.rootId) ?? '',
      path: file.path,
      absolutePath: join(places.roots.get(file.rootId) ?? '', file.path),
      score,
      evidence,
      ...(options.explain ? { explain: { features: scaled, prior, roles, code } } : {}),
    };
  });
  const totalMs = performance.now() - started;
  return {
    title: issue.title,
    length: whole.length,
    requestedMode,
    mode: elements.mode,
    ...(elements.fallback ? { fallback: elements.fallback } : {}),
    files,
    timings: { elementsMs, evidenceMs: totalMs - elementsMs, totalMs },
  };
}

/**
 * The element search's query: the issue's title, its error messages, the
 * names it spells (surest first), then its prose, within `budget`
 * characters. A long issue keeps what carries signal, not its first
 * characters; the rest of its words reach the files through whole-file
 * BM25 (file-evidence.ts). A short budget is both better and faster than
 * the whole query limit (docs/retrieval-quality.md, "Which file").
 */
export function elementQuery(issue: IssueReading, budget = ELEMENT_QUERY_LENGTH): string {
  const names = [...issue.names].sort((a, b) => b[1] - a[1]).map(([name]) => name);
  const parts = [issue.title, ...issue.errors, names.join(' '), issue.prose.slice(issue.title.length)];
  let query = '';
  for (const part of parts) {
    const room = budget - query.length - 1;
    if (room <= 0) break;
    const piece = part.length <= room ? part : part.slice(0, room).replace(/\s+\S*$/, '');
    if (piece.trim()) query = query ? `${query}\n${piece}` : piece;
  }
  return query.trim() || issue.text.slice(0, MAX_QUERY_LENGTH);
}

/**
 * Each file's share of the element ranking: its elements' reciprocal ranks,
 * each further element of the same file counting half the one before (a
 * file answers once; a second good element confirms it).
 */
function addElementEvidence(
  candidates: Map<string, FileCandidate>,
  results: readonly { repo: string; path: string; name: string }[],
  files: readonly { fileId: number; rootId: number; path: string }[],
  places: FilePlaces,
): void {
  const rootOf = new Map([...places.names].map(([rootId, name]) => [name, rootId]));
  const byPath = new Map(files.map((file) => [`${file.rootId}\0${file.path}`, file]));
  const seen = new Map<string, number>();
  results.forEach((result, rank) => {
    const file = byPath.get(`${rootOf.get(result.repo)}\0${result.path}`);
    if (!file) return;
    const key = fileKey(file);
    const before = seen.get(key) ?? 0;
    seen.set(key, before + 1);
    let candidate = candidates.get(key);
    if (!candidate) candidates.set(key, (candidate = { file, features: {}, evidence: {} }));
    candidate.features.elements = (candidate.features.elements ?? 0) + 0.5 ** before / (rank + 5);
    const said = (candidate.evidence.elements ??= []);
    if (said.length < 3) said.push(`${result.name} (#${rank + 1})`);
  });
}
