/**
 * What answers searches: a Searcher on the calling thread, or a
 * SearcherPool of them on worker threads (search/pool/). The agent tools
 * and the MCP server take either.
 */
import type { Searcher } from './searcher.js';

export type SearchService = Pick<
  Searcher,
  | 'indexDir'
  | 'root'
  | 'embedderId'
  | 'repositories'
  | 'currentRepositories'
  | 'searchRoots'
  | 'search'
  | 'searchFiles'
  | 'references'
  | 'embedderStatus'
> & {
  /** Closes the index (a pool: ends its workers, after the calls they are on). */
  close(): void | Promise<void>;
};
