/**
 * What one MCP client may do: which repositories it may see, and whether it
 * may write (call the tools whose access is 'write': reindex). Over stdio the client is the user; over HTTP it
 * is the token the request carries (tokens.ts). A token limited to some
 * repositories never learns of another one: a repository outside its list
 * is answered exactly as a repository that does not exist.
 */
import { unknownRepository as unknownRepositoryError } from '../search/scopes.js';

export interface McpAccess {
  /** The token's name, for log lines; absent over stdio and for an HTTP server without tokens. */
  readonly name?: string;
  /** The repositories it may search, by name, or '*' for every one. */
  readonly repos: '*' | readonly string[];
  /** Whether it may call the tools that write (registry.ts). */
  readonly write: boolean;
}

/** The user at the other end of stdio, or any client of a loopback HTTP server without tokens. */
export const FULL_ACCESS: McpAccess = { repos: '*', write: true };

/**
 * The error for a repository the index does not have: the library's own
 * sentence (SearchError UNKNOWN_REPO), which a repository a token may not
 * see gets too, so that the answer reveals nothing.
 */
export function unknownRepository(name: string): string {
  return unknownRepositoryError(name).message;
}

/**
 * The repositories a call may search, given the token's list, the ones the
 * call asks for, and (when known) the index's: `repos` undefined means every
 * repository (a token for all, nothing asked); a token for some searches
 * all of its own the index has, unless the call names fewer. A name outside
 * the token's list is refused exactly as a name the index does not have.
 */
export function scopeRepos(
  tokenRepos: '*' | readonly string[],
  requested: readonly string[] | undefined,
  known?: readonly string[],
): { repos: string[] | undefined } | { error: string } {
  if (tokenRepos === '*') return { repos: requested === undefined ? undefined : [...requested] };
  const allowed = known ? tokenRepos.filter((name) => known.includes(name)) : [...tokenRepos];
  // An empty list asks for nothing in particular: it must not widen a token's scope.
  if (requested === undefined || requested.length === 0)
    return allowed.length > 0 ? { repos: allowed } : { error: unknownRepository(tokenRepos[0]!) };
  const outside = requested.find((name) => !allowed.includes(name));
  if (outside !== undefined) return { error: unknownRepository(outside) };
  return { repos: [...new Set(requested)] };
}

/**
 * The arguments of a search tool's call (codebase_search, find_references,
 * find_files_to_change) as this access may make them: the token's
 * repositories put into `repos`, or the error to
 * answer instead (as the tool words an unknown repository). `takesRepos`:
 * whether the tool has a `repos` argument; without one, a token limited to
 * some repositories cannot be held to them, so it is refused. `known`: the
 * index's repositories, when they could be read.
 */
export function scopeArguments(
  args: Record<string, unknown>,
  access: McpAccess,
  takesRepos: boolean,
  known?: readonly string[],
): { args: Record<string, unknown> } | { error: string } {
  if (access.repos === '*') return { args };
  if (!takesRepos)
    return {
      error: `this tool cannot be kept to repositories yet, so a token limited to some (${access.repos.join(', ')}) cannot call it`,
    };
  const requested = args.repos;
  if (requested !== undefined && !(Array.isArray(requested) && requested.every((name) => typeof name === 'string')))
    return { error: 'invalid arguments: repos must be a list of repository names' };
  const scope = scopeRepos(access.repos, requested, known);
  if ('error' in scope) return { error: `invalid arguments: ${scope.error}` };
  return { args: { ...args, repos: scope.repos } };
}

/** What a tool does to the index: reads it (searches, status) or writes it (reindex). */
export type ToolAccess = 'read' | 'write';

/**
 * Whether this access lists and may call a tool: every client reads; only a
 * token that may write writes (a token for some repositories may update
 * those only, by name).
 */
export function mayCall(access: McpAccess, tool: { readonly access: ToolAccess }): boolean {
  return tool.access === 'read' || access.write;
}
