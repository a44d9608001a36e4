/**
 * What the tools of the MCP server do (definitions.ts declares them,
 * registry.ts joins each to its handler and its access). A handler gets the
 * state every connection shares (the open search tool, the reindex queue)
 * and the caller (what its access allows, where its log lines go); the
 * server has checked the caller may use the tool before it runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { lazyValidator } from '../lazy-validator.js';
import type { IndexEvent, IndexSummary } from '../indexing/events.js';
import { Indexer, type IndexerOptions } from '../indexing/indexer.js';
import { storeStatus, type IndexStatus } from '../indexing/status.js';
import { openStore, type PostgresChoice } from '../store/open.js';
import { StoreError } from '../store/errors.js';
import type { CodebaseSearchTool } from '../tool/codebase-search-tool.js';
import type { FindFilesTool } from '../tool/find-files-tool.js';
import type { FindReferencesTool } from '../tool/find-references-tool.js';
import { PathOutsideRootError } from '../files/errors.js';
import { confineToRoots } from '../tool/paths.js';
import { scopeArguments, scopeRepos, unknownRepository, type McpAccess } from './access.js';
import { REINDEX_ARGS } from './definitions.js';
import { shownValue } from './log-line.js';

/** What every connection shares: where the index is, the open search tool, the reindex queue. */
export interface SharedState {
  readonly root: string;
  readonly indexDir: string;
  /** The shared store served instead of the embedded index in indexDir. */
  readonly store?: PostgresChoice;
  readonly search: CodebaseSearchTool;
  readonly references: FindReferencesTool;
  readonly files: FindFilesTool;
  readonly indexer: Pick<
    IndexerOptions,
    'llm' | 'embedder' | 'embedderOptions' | 'ollama' | 'openai' | 'threads' | 'limits'
  >;
  /** The reindex under way: one at a time, a second call waits for the first, then finds little to do. */
  reindexing: Promise<unknown>;
}

/** Who is calling: what its access allows, and where its log lines go. */
export interface Caller {
  readonly access: McpAccess;
  readonly log: (line: string) => void;
}

export type RequestExtra = Parameters<Parameters<McpServer['server']['setRequestHandler']>[1]>[1];

export type ToolHandler = (
  shared: SharedState,
  caller: Caller,
  args: Record<string, unknown>,
  extra: RequestExtra,
  took: () => string,
) => Promise<CallToolResult>;

const validateReindex = lazyValidator<{ path?: string; repo?: string }>(REINDEX_ARGS);

/** Progress notifications at most this often. */
const PROGRESS_INTERVAL_MS = 250;

/** Whether a tool takes a `repos` argument, so that a token's repositories can be put into its calls. */
function takesRepos(tool: { parameters: object }): boolean {
  return 'repos' in ((tool.parameters as { properties?: object }).properties ?? {});
}

/**
 * The call's arguments kept to the caller's repositories (scopeArguments),
 * given the index's repositories when the caller is limited to some, so
 * that it searches those of its own that the index has.
 */
async function scoped(
  search: CodebaseSearchTool,
  tool: { parameters: object },
  args: Record<string, unknown>,
  access: McpAccess,
): Promise<{ args: Record<string, unknown> } | { error: string }> {
  if (access.repos === '*') return { args };
  return scopeArguments(args, access, takesRepos(tool), await knownRepositories(search));
}

/** The names of the index's repositories, as of its last search; undefined when the index cannot be opened. */
function knownRepositories(search: CodebaseSearchTool): Promise<string[] | undefined> {
  return search.openSearcher().then(
    async (searcher) => (await searcher.currentRepositories()).map((repository) => repository.name),
    () => undefined,
  );
}

export async function searchCall(
  { search }: SharedState,
  { access, log }: Caller,
  raw: Record<string, unknown>,
  _extra: RequestExtra,
  took: () => string,
): Promise<CallToolResult> {
  const call = await scoped(search, search, raw, access);
  const output =
    'error' in call ? { results: [], fallback_used: false, error: call.error } : await search.execute(call.args);
  log(
    `${search.name} ${shownValue(raw.query ?? '')}: ${output.error ? `error: ${output.error}` : `${output.results.length} results`} (${took()})`,
  );
  return structured(output, output.error !== undefined);
}

export async function referencesCall(
  { search, references }: SharedState,
  { access, log }: Caller,
  raw: Record<string, unknown>,
  _extra: RequestExtra,
  took: () => string,
): Promise<CallToolResult> {
  const call = await scoped(search, references, raw, access);
  const symbol = typeof raw.symbol === 'string' ? raw.symbol : '';
  const output =
    'error' in call
      ? { symbol, definitions: [], files: [], total: 0, total_files: 0, truncated: false, error: call.error }
      : await references.execute(call.args);
  log(
    `${references.name} ${shownValue(raw.symbol ?? '')}: ${output.error ? `error: ${output.error}` : `${output.total} lines in ${output.total_files} files`} (${took()})`,
  );
  return structured(output, output.error !== undefined);
}

export async function filesCall(
  { search, files }: SharedState,
  { access, log }: Caller,
  raw: Record<string, unknown>,
  _extra: RequestExtra,
  took: () => string,
): Promise<CallToolResult> {
  const call = await scoped(search, files, raw, access);
  const output =
    'error' in call ? { files: [], fallback_used: false, error: call.error } : await files.execute(call.args);
  // shownValue shows the issue's first characters and its length: the whole may be 100,000 characters.
  log(
    `${files.name} ${shownValue(raw.issue ?? '')}: ${output.error ? `error: ${output.error}` : `${output.files.length} files`} (${took()})`,
  );
  return structured(output, output.error !== undefined);
}

export async function statusCall(
  { indexDir, store, search }: SharedState,
  { access, log }: Caller,
  args: Record<string, unknown>,
  _extra: RequestExtra,
  took: () => string,
): Promise<CallToolResult> {
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
}

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

export async function reindexCall(
  shared: SharedState,
  { access, log }: Caller,
  args: Record<string, unknown>,
  extra: RequestExtra,
  took: () => string,
): Promise<CallToolResult> {
  if (!validateReindex(args))
    return toolError(
      `invalid arguments: ${validateReindex.errors?.map((e) => `${e.instancePath.slice(1) || 'arguments'} ${e.message}`).join('; ')}`,
    );
  const { indexDir, store } = shared;
  const where = await reindexTarget(shared, access, args.repo);
  if ('error' in where) {
    log(`reindex refused: ${where.error}`);
    return toolError(where.error);
  }
  const { root, repo } = where;
  let target = root;
  try {
    if (args.path !== undefined) target = join(root, confineToRoots([root], args.path, 'the repository being updated'));
  } catch (error) {
    if (error instanceof PathOutsideRootError) return toolError(`path refused: ${error.message}`);
    throw error;
  }
  if (!existsSync(target))
    return toolError(
      args.path === undefined ? `${root} is not on this server` : `${args.path}: no such file or directory in ${root}`,
    );
  const progress = progressReporter(extra._meta?.progressToken, (notification) => extra.sendNotification(notification));
  const run = shared.reindexing.then(() =>
    new Indexer({
      ...shared.indexer,
      root,
      path: target,
      indexDir,
      ...(store ? { store } : {}),
      ...(repo !== undefined ? { repo } : {}),
      signal: extra.signal,
      onEvent: progress,
    }).run(),
  );
  shared.reindexing = run.catch(() => {});
  try {
    const summary = await run;
    const f = summary.files;
    log(`reindex: ${f.added} added, ${f.changed} changed, ${f.deleted} deleted, ${f.unchanged} unchanged (${took()})`);
    return structured(access.repos === '*' ? summary : ownFiguresOfSummary(summary));
  } catch (error) {
    log(`reindex failed: ${(error as Error).message}`);
    return toolError(`reindex failed: ${(error as Error).message}`);
  }
}

/**
 * Where a reindex runs: a repository of the index by name (a token for
 * some repositories may name only those: another is answered as unknown),
 * from the directory it was last indexed from; without a name, the root
 * this server serves, which only a token for every repository may update.
 */
async function reindexTarget(
  shared: SharedState,
  access: McpAccess,
  repo: string | undefined,
): Promise<{ root: string; repo: string | undefined } | { error: string }> {
  if (repo === undefined) {
    if (access.repos !== '*')
      return {
        error: `name the repository to update (repo): the token "${access.name}" may update ${access.repos.join(', ')} only`,
      };
    return { root: shared.root, repo: undefined };
  }
  if (access.repos !== '*' && !access.repos.includes(repo)) return { error: unknownRepository(repo) };
  try {
    const store = await openStore(shared.store, { indexDir: shared.indexDir });
    const repository = (await store.repositories()).find((known) => known.name === repo);
    return repository ? { root: repository.root, repo } : { error: unknownRepository(repo) };
  } catch (error) {
    return { error: `reindex failed: ${(error as Error).message}` };
  }
}

/*
 * A token limited to some repositories sees their figures only. The index's
 * generation, its size on disk, the vector file's generation and its vector
 * and element totals are the whole store's: they move when another
 * repository is indexed, telling one team of another's work. The store keeps
 * no such figure per repository (a table is shared by all), so they are left
 * out; each repository's files, elements and indexedAt say what it holds and
 * how fresh it is.
 */

/** index_status without the store-wide figures (docs/architecture.md, "The MCP server over HTTP"). */
function ownFiguresOfStatus(status: IndexStatus): Omit<IndexStatus, 'generation' | 'sizeBytes' | 'vectorIndex'> & {
  vectorIndex: Pick<IndexStatus['vectorIndex'], 'description'>;
} {
  const { generation: _generation, sizeBytes: _sizeBytes, vectorIndex, ...own } = status;
  return { ...own, vectorIndex: { description: vectorIndex.description } };
}

/** A reindex summary without the store-wide figures: its generation, element and vector totals. */
function ownFiguresOfSummary(summary: IndexSummary): object {
  const { generation: _generation, elements, index, ...own } = summary;
  const { total: _total, ...changed } = elements;
  return { ...own, elements: changed, index: { description: index.description, written: index.written } };
}

/** An answer as JSON text and as structured content (which clients check against the tool's output schema). */
function structured(output: object, isError?: boolean): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: { ...output },
    ...(isError === undefined ? {} : { isError }),
  };
}

/**
 * A tool's error, in the shape every tool answers one: JSON with an `error` sentence, as text and as
 * structured content (the search tools add their empty results beside it).
 */
export function toolError(message: string): CallToolResult {
  return structured({ error: message }, true);
}

type ProgressNotification = {
  method: 'notifications/progress';
  params: { progressToken: string | number; progress: number; total?: number; message?: string };
};

/** Indexer events as MCP progress notifications, when the client asked for them (a progress token). */
function progressReporter(
  token: string | number | undefined,
  send: (notification: ProgressNotification) => Promise<void>,
): (event: IndexEvent) => void {
  if (token === undefined) return () => {};
  let last = 0;
  return (event) => {
    if (event.type !== 'progress') return;
    const now = performance.now();
    if (now - last < PROGRESS_INTERVAL_MS && event.done !== event.total) return;
    last = now;
    send({
      method: 'notifications/progress',
      params: {
        progressToken: token,
        progress: event.done,
        total: event.total,
        message: `${event.done}/${event.total} files`,
      },
    }).catch(() => {});
  };
}
