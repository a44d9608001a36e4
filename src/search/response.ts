/**
 * What a search answers: the response, each result with its location,
 * names, score, signals and snippet, and (with `explain`) how its score
 * added up.
 */
import type { QueryKind } from './query.js';
import type { RankSignals } from './ranking/ranking.js';
import type { ScoreExplanation } from './ranking/score.js';

export type SearchMode = 'hybrid' | 'lexical' | 'vector';

export type SearchSignals = RankSignals;

export interface SearchResult {
  /** The repository it is in (its name in the index). */
  repo: string;
  /** Relative to the repository's root, with forward slashes. */
  path: string;
  absolutePath: string;
  startLine: number;
  endLine: number;
  type: string;
  name: string;
  signature: string;
  description: string;
  language: string | null;
  score: number;
  signals: SearchSignals;
  snippet?: string;
  /** Where the snippet starts, when not at startLine: the lines that match the query, deep in a long element or chunk. */
  snippetStartLine?: number;
  /** Lines of the element after the snippet, not shown (when the snippet was cut to its limit). */
  snippetMoreLines?: number;
  /** The file changed since it was indexed: lines may have moved. */
  stale: boolean;
  /** Why there is no snippet, when there is none. */
  problem?: string;
  /** How the score added up, term by term (with the `explain` option). */
  explain?: ScoreExplanation;
}

export interface SearchTimings {
  embedMs: number;
  vectorMs: number;
  lexicalMs: number;
  fusionMs: number;
  snippetMs: number;
  totalMs: number;
}

export interface SearchResponse {
  query: string;
  kind: QueryKind;
  /** The mode asked for, and the one that answered (lexical when the vector side is unavailable). */
  requestedMode: SearchMode;
  mode: SearchMode;
  fallback?: { reason: string };
  results: SearchResult[];
  root: string;
  embedder: string;
  /** Elements in the index. */
  elements: number;
  timings: SearchTimings;
}

/** Whether the searcher can embed queries now (see {@link Searcher.embedderStatus}). */
export interface EmbedderStatus {
  /** The index's embedder id. */
  embedder: string;
  available: boolean;
  /** Why not, when not. */
  problem?: string;
}
