/** index_status: what the index covers, how fresh it is, and whether semantic search works now. */
import { storeStatus, type IndexStatus } from '../../indexing/status.js';
import { StoreError } from '../../store/errors.js';
import { openStore } from '../../store/open.js';
import type { CodebaseSearchTool } from '../../tool/codebase-search-tool.js';
import { scopeRepos } from '../access.js';
import type { McpTool } from '../mcp-tool.js';
import { structured, toolError } from '../tool-answer.js';
import { knownRepositories } from './repository-scope.js';

const NO_ARGUMENTS = { type: 'object', properties: {}, additionalProperties: false } as const;

export const indexStatus: McpTool = {
  name: 'index_status',
  title: 'Index status',
  description:
    'What the code index covers and how fresh it is: root, embedder, when and how it was last updated, files and elements per language, and the files modified, deleted or added since (stale); and whether semantic search works now (search.degraded: the embedder is unavailable, so codebase_search answers with keyword matches only, search.reason says why). Call reindex when files are stale.',
  inputSchema: NO_ARGUMENTS,
  hints: { openWorldHint: false },
  access: 'read',
  async handler({ indexDir, store, search }, { access, log }, args, _extra, took) {
    if (Object.keys(args).length > 0)
      return toolError(`index_status takes no arguments (got ${Object.keys(args).join(', ')})`);
    const target = await openStore(store, { indexDir });
    if (!target.exists()) return toolError(`there is no index at ${indexDir} yet: call reindex to build it`);
    let status: IndexStatus;
    try {
      // A token limited to some repositories sees the status of those (the ones the index has) and nothing of another.
      const scope =
        access.repos === '*'
          ? { repos: undefined }
          : scopeRepos(access.repos, undefined, await knownRepositories(search));
      if ('error' in scope) return toolError(scope.error);
      const only = scope.repos ? { repos: scope.repos } : {};
      status = await storeStatus(target, only);
    } catch (error) {
      if (error instanceof StoreError && (error.code === 'UNKNOWN_REPO' || error.code === 'UNREACHABLE'))
        return toolError(error.message);
      throw error;
    }
    const health = await searchHealth(search);
    log(`index_status${health.degraded ? ': searches degraded (lexical only)' : ''} (${took()})`);
    return structured({ ...(access.repos === '*' ? status : ownFiguresOfStatus(status)), search: health });
  },
};

/** What index_status says about search: hybrid, or degraded to keyword matches while the embedder is unavailable. */
interface SearchHealth {
  mode: 'hybrid' | 'lexical';
  degraded: boolean;
  reason?: string;
}

async function searchHealth(search: CodebaseSearchTool): Promise<SearchHealth> {
  const health = await search.embedderStatus().catch((error: unknown) => ({
    embedder: 'unknown',
    available: false,
    problem: (error as Error).message,
  }));
  if (health.available) return { mode: 'hybrid', degraded: false };
  return {
    mode: 'lexical',
    degraded: true,
    reason: `the embedder ${health.embedder} is unavailable (${health.problem}): codebase_search answers with keyword matches only until it is back`,
  };
}

/*
 * A token limited to some repositories sees their figures only. The index's
 * generation, its size on disk, the vector file's generation and its vector
 * and element totals are the whole store's: they move when another
 * repository is indexed, telling one team of another's work. The store keeps
 * no such figure per repository (a table is shared by all), so they are left
 * out; each repository's files, elements and indexedAt say what it holds and
 * how fresh it is. reindex.ts does the same to its summary.
 */

/** index_status without the store-wide figures (docs/architecture.md, "The MCP server over HTTP"). */
function ownFiguresOfStatus(status: IndexStatus): Omit<IndexStatus, 'generation' | 'sizeBytes' | 'vectorIndex'> & {
  vectorIndex: Pick<IndexStatus['vectorIndex'], 'description'>;
} {
  const { generation: _generation, sizeBytes: _sizeBytes, vectorIndex, ...own } = status;
  return { ...own, vectorIndex: { description: vectorIndex.description } };
}
