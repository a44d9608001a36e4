/**
 * Runs an evaluation set against an index, in each search mode, and scores
 * the answers at file level and (where the set names elements) at element
 * level.
 */
import type { SearchMode, SearchResult, Searcher } from '../search/searcher.js';
import { firstRank, scoreRanks, type RetrievalScores } from './metrics.js';
import type { EvalQuery, ExpectedElement } from './set.js';

export const EVAL_MODES: readonly SearchMode[] = ['lexical', 'vector', 'hybrid'];
/** Results looked at per query: hit@10 and MRR@10 need ten. */
export const EVAL_DEPTH = 10;

export interface ModeScores {
  file: RetrievalScores;
  /** Over the queries that name elements; absent when none does. */
  element?: RetrievalScores;
  /** The search mode that answered, when it was not the one asked for (the embedder was unavailable). */
  fallback?: string;
}

export interface QueryOutcome {
  id: string;
  query: string;
  /** By mode: the 1-based rank of the first right file and element (0: not in the top 10), and the top 3 paths. */
  modes: Partial<Record<SearchMode, { fileRank: number; elementRank?: number; top: string[] }>>;
}

export interface EvalReport {
  root: string;
  embedder: string;
  elements: number;
  queries: number;
  modes: Partial<Record<SearchMode, ModeScores>>;
  details: QueryOutcome[];
}

export interface EvaluateOptions {
  modes?: readonly SearchMode[];
  onProgress?: (done: number, total: number) => void;
}

export async function evaluate(
  searcher: Searcher,
  queries: readonly EvalQuery[],
  options: EvaluateOptions = {},
): Promise<EvalReport> {
  const modes = options.modes ?? EVAL_MODES;
  const details: QueryOutcome[] = queries.map((q) => ({ id: q.id, query: q.query, modes: {} }));
  const report: EvalReport = {
    root: searcher.root,
    embedder: searcher.embedderId,
    elements: 0,
    queries: queries.length,
    modes: {},
    details,
  };
  const total = modes.length * queries.length;
  let done = 0;
  for (const mode of modes) {
    const fileRanks: number[] = [];
    const elementRanks: number[] = [];
    let fallback: string | undefined;
    for (const [i, q] of queries.entries()) {
      const response = await searcher.search(q.query, { k: EVAL_DEPTH, mode, snippet: false });
      report.elements = response.elements;
      if (response.fallback) fallback = response.fallback.reason;
      const expectedPaths = new Set(q.expected_paths);
      const fileRank = firstRank(response.results, (result) => expectedPaths.has(result.path));
      fileRanks.push(fileRank);
      const outcome: { fileRank: number; elementRank?: number; top: string[] } = {
        fileRank,
        top: response.results.slice(0, 3).map((r) => `${r.path}:${r.startLine} ${r.name}`),
      };
      if (q.expected_elements) {
        const expected = q.expected_elements;
        outcome.elementRank = firstRank(response.results, (result) =>
          expected.some((element) => matchesElement(result, element)),
        );
        elementRanks.push(outcome.elementRank);
      }
      details[i]!.modes[mode] = outcome;
      options.onProgress?.(++done, total);
    }
    report.modes[mode] = {
      file: scoreRanks(fileRanks),
      ...(elementRanks.length > 0 ? { element: scoreRanks(elementRanks) } : {}),
      ...(fallback ? { fallback } : {}),
    };
  }
  return report;
}

function matchesElement(result: SearchResult, element: ExpectedElement): boolean {
  if (result.path !== element.path) return false;
  if (element.name !== undefined && result.name !== element.name) return false;
  // Lines, when given, tell apart elements of one file that share a name.
  return (
    element.start_line === undefined ||
    element.end_line === undefined ||
    (result.startLine <= element.end_line && result.endLine >= element.start_line)
  );
}
