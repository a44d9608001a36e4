/** The checks a search makes of what it is asked, each failing with SearchError naming the problem. */
import { SearchError } from './errors.js';
import type { SearchMode } from './response.js';
import type { SearchOptions } from './searcher.js';

/** What a search does when its options leave something out. */
export const SEARCH_DEFAULTS = {
  k: 10,
  mode: 'hybrid',
  snippet: true,
  explain: false,
} as const satisfies SearchOptions;

export const MAX_K = 100;
export const MAX_QUERY_LENGTH = 2_000;

const WHOLE_ISSUE_HINT =
  ' (for a whole issue or bug report: oc-vector-search --files, or the find_files_to_change tool)';

/** A query's text, trimmed; `limit`: the most characters taken (a file search takes a whole issue). */
export function validateQuery(query: unknown, limit = MAX_QUERY_LENGTH): string {
  if (typeof query !== 'string')
    throw new SearchError(`the query must be a string, not ${query === null ? 'null' : typeof query}`, 'BAD_QUERY');
  const text = query.trim();
  if (!text) throw new SearchError('the query is empty', 'BAD_QUERY');
  if (text.length > limit)
    throw new SearchError(
      // A query that long is most often an issue pasted whole: the file search takes it.
      `the query is ${text.length} characters long; at most ${limit} are allowed${limit === MAX_QUERY_LENGTH ? WHOLE_ISSUE_HINT : ''}`,
      'BAD_QUERY',
    );
  // Punctuation alone matches nothing in the lexical index, and embeds to noise.
  if (!/[\p{L}\p{N}]/u.test(text))
    throw new SearchError(
      `the query "${text.slice(0, 40)}" has no words to search for: use letters or digits`,
      'BAD_QUERY',
    );
  return text;
}

export function validateK(k: unknown): number {
  if (k === undefined) return SEARCH_DEFAULTS.k;
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > MAX_K)
    throw new SearchError(`k must be an integer from 1 to ${MAX_K}, not ${String(k)}`, 'BAD_OPTION');
  return k;
}

export function validateMode(mode: unknown): SearchMode {
  if (mode === undefined) return SEARCH_DEFAULTS.mode;
  if (mode === 'hybrid' || mode === 'lexical' || mode === 'vector') return mode;
  throw new SearchError(`mode must be hybrid, lexical or vector, not ${String(mode)}`, 'BAD_OPTION');
}
