/**
 * A search tool's call kept to the caller's repositories: what access.ts
 * decides, given the index's repositories (read from the open searcher).
 */
import type { CodebaseSearchTool } from '../../tool/codebase-search-tool.js';
import { scopeArguments, type McpAccess } from '../access.js';
import type { ObjectSchema } from '../mcp-tool.js';

/** Whether a tool takes a `repos` argument, so that a token's repositories can be put into its calls. */
function takesRepos(inputSchema: ObjectSchema): boolean {
  return 'repos' in ((inputSchema as { properties?: object }).properties ?? {});
}

/**
 * The call's arguments kept to the caller's repositories (scopeArguments),
 * given the index's repositories when the caller is limited to some, so
 * that it searches those of its own that the index has.
 */
export async function scoped(
  search: CodebaseSearchTool,
  inputSchema: ObjectSchema,
  args: Record<string, unknown>,
  access: McpAccess,
): Promise<{ args: Record<string, unknown> } | { error: string }> {
  if (access.repos === '*') return { args };
  return scopeArguments(args, access, takesRepos(inputSchema), await knownRepositories(search));
}

/** The names of the index's repositories, as of its last search; undefined when the index cannot be opened. */
export function knownRepositories(search: CodebaseSearchTool): Promise<string[] | undefined> {
  return search.openSearcher().then(
    async (searcher) => (await searcher.currentRepositories()).map((repository) => repository.name),
    () => undefined,
  );
}
