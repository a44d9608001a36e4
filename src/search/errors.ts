/** The search layer's one error class (docs/architecture.md, "Errors"). */
import { OcvectorError } from '../errors.js';

/**
 * BAD_QUERY, BAD_OPTION: the query or an option is wrong. CLOSED: the
 * searcher was closed. EMBEDDER_UNAVAILABLE: a `vector` search could not
 * embed the query. VECTORS_UNAVAILABLE: a `vector` search has no usable
 * vectors (the addon cannot load, the FAISS file cannot be used). A hybrid
 * search answers lexically instead of either, and says why (`fallback`).
 */
export type SearchErrorCode =
  | 'BAD_QUERY'
  | 'BAD_OPTION'
  | 'CLOSED'
  | 'EMBEDDER_UNAVAILABLE'
  | 'VECTORS_UNAVAILABLE'
  | 'UNKNOWN_REPO';

export class SearchError extends OcvectorError<SearchErrorCode> {
  override name = 'SearchError';
}
