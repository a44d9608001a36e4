/**
 * The index as an MCP server: `codebase_search` (read-only), `index_status`
 * (read-only) and `reindex` (brings the index up to date, incrementally).
 * One Searcher stays open for the life of the server, so a search pays for
 * opening the index once, and it catches up by itself after each reindex.
 *
 * The tools are declared with their JSON schemas directly (the SDK's
 * low-level handlers), so that MCP clients and the agent adapters see the
 * very same schema.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { Ajv } from 'ajv';
import type { IndexEvent } from '../indexing/events.js';
import { Indexer, type IndexerOptions } from '../indexing/indexer.js';
import { indexStatus } from '../indexing/status.js';
import { DATABASE_FILE } from '../store/database.js';
import { CodebaseSearchTool, type CodebaseSearchToolOptions } from '../tool/codebase-search-tool.js';
import { FindReferencesTool } from '../tool/find-references-tool.js';
import { PathOutsideRootError } from '../files/errors.js';
import { confineToRoot } from '../tool/paths.js';

export interface CodebaseMcpServerOptions {
  /** The root the index covers. */
  root: string;
  /** Default `<root>/.ocvector`. */
  indexDir?: string;
  /** How reindex indexes: the analysis model, the embedder for a new index, threads. */
  indexer?: Pick<IndexerOptions, 'llm' | 'embedder' | 'ollama' | 'openai' | 'threads' | 'limits'>;
  /** Size budget and permission callback of codebase_search. */
  search?: Pick<CodebaseSearchToolOptions, 'budget' | 'permission' | 'searcherOptions'>;
  version?: string;
  /** One line per call and per problem, for stderr (stdout carries the protocol). */
  onLog?: (line: string) => void;
}

export interface CodebaseMcpServer {
  readonly mcp: McpServer;
  readonly tools: readonly Tool[];
  /** Waits for a reindex in progress, then closes the index and the connection. */
  close(): Promise<void>;
}

const EMPTY_ARGS = { type: 'object', properties: {}, additionalProperties: false } as const;

const REINDEX_ARGS = {
  type: 'object',
  properties: {
    path: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description:
        'Only this file or directory, relative to the root (default: the whole root). Unchanged files are skipped either way.',
    },
  },
  additionalProperties: false,
} as const;

const validateReindex = new Ajv({ allErrors: true }).compile<{ path?: string }>(REINDEX_ARGS);

/** Progress notifications at most this often. */
const PROGRESS_INTERVAL_MS = 250;

export function createCodebaseMcpServer(options: CodebaseMcpServerOptions): CodebaseMcpServer {
  const { root } = options;
  const indexDir = options.indexDir ?? join(root, '.ocvector');
  const search = new CodebaseSearchTool({ ...options.search, indexDir });
  const context: ServerContext = {
    root,
    indexDir,
    log: options.onLog ?? (() => {}),
    search,
    references: new FindReferencesTool(search),
    indexer: options.indexer ?? {},
    reindexing: Promise.resolve(),
  };
  const tools = toolDefinitions(context.search, context.references);
  const handlers: Record<string, ToolHandler> = {
    [context.search.name]: searchCall,
    [context.references.name]: referencesCall,
    index_status: statusCall,
    reindex: reindexCall,
  };

  const mcp = new McpServer({ name: 'ocvector', version: options.version ?? '0.0.0' }, { capabilities: { tools: {} } });
  // A line that is not JSON-RPC is dropped by the transport; say so, and serve on.
  mcp.server.onerror = (error) => context.log(`protocol error: ${error.message}`);
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args = {} } = request.params;
    const handler = handlers[name];
    if (!handler)
      throw protocolError(
        ErrorCode.InvalidParams,
        `unknown tool "${name}"; available: ${tools.map((tool) => tool.name).join(', ')}`,
      );
    const started = performance.now();
    return handler(context, args, extra, () => `${Math.round(performance.now() - started)} ms`);
  });

  return {
    mcp,
    tools,
    async close() {
      await context.reindexing;
      await context.search.close();
      await mcp.close();
    },
  };
}

/** What the tool handlers share: where the index is, how to log, the open search tool, the reindex queue. */
interface ServerContext {
  readonly root: string;
  readonly indexDir: string;
  readonly log: (line: string) => void;
  readonly search: CodebaseSearchTool;
  readonly references: FindReferencesTool;
  readonly indexer: NonNullable<CodebaseMcpServerOptions['indexer']>;
  /** The reindex under way: one at a time, a second call waits for the first, then finds little to do. */
  reindexing: Promise<unknown>;
}

type RequestExtra = Parameters<Parameters<McpServer['server']['setRequestHandler']>[1]>[1];

type ToolHandler = (
  context: ServerContext,
  args: Record<string, unknown>,
  extra: RequestExtra,
  took: () => string,
) => Promise<CallToolResult>;

function toolDefinitions(search: CodebaseSearchTool, references: FindReferencesTool): Tool[] {
  return [
    {
      name: search.name,
      title: 'Search the codebase',
      description: search.description,
      inputSchema: search.parameters as Tool['inputSchema'],
      outputSchema: search.outputSchema as Tool['outputSchema'],
      annotations: { title: 'Search the codebase', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: references.name,
      title: 'Find references',
      description: references.description,
      inputSchema: references.parameters as unknown as Tool['inputSchema'],
      outputSchema: references.outputSchema as unknown as Tool['outputSchema'],
      annotations: { title: 'Find references', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'index_status',
      title: 'Index status',
      description:
        'What the code index covers and how fresh it is: root, embedder, when and how it was last updated, files and elements per language, and the files modified, deleted or added since (stale); and whether semantic search works now (search.degraded: the embedder is unavailable, so codebase_search answers with keyword matches only, search.reason says why). Call reindex when files are stale.',
      inputSchema: EMPTY_ARGS as unknown as Tool['inputSchema'],
      annotations: { title: 'Index status', readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'reindex',
      title: 'Update the index',
      description:
        'Brings the code index up to date with the files on disk, incrementally: only added, changed and deleted files are analysed again. Call it after editing files, before searching for what you changed.',
      inputSchema: REINDEX_ARGS as unknown as Tool['inputSchema'],
      annotations: {
        title: 'Update the index',
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
  ];
}

const searchCall: ToolHandler = async ({ search, log }, args, _extra, took) => {
  const output = await search.execute(args);
  log(
    `${search.name} ${JSON.stringify(args.query ?? '')}: ${output.error ? `error: ${output.error}` : `${output.results.length} results`} (${took()})`,
  );
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: { ...output },
    isError: output.error !== undefined,
  };
};

const referencesCall: ToolHandler = async ({ references, log }, args, _extra, took) => {
  const output = await references.execute(args);
  log(
    `${references.name} ${JSON.stringify(args.symbol ?? '')}: ${output.error ? `error: ${output.error}` : `${output.total} lines in ${output.total_files} files`} (${took()})`,
  );
  return {
    content: [{ type: 'text', text: JSON.stringify(output) }],
    structuredContent: { ...output },
    isError: output.error !== undefined,
  };
};

const statusCall: ToolHandler = async ({ indexDir, log, search }, args, _extra, took) => {
  if (Object.keys(args).length > 0)
    return toolError(`index_status takes no arguments (got ${Object.keys(args).join(', ')})`);
  if (!existsSync(join(indexDir, DATABASE_FILE)))
    return toolError(`there is no index at ${indexDir} yet: call reindex to build it`);
  const status = { ...(await indexStatus(indexDir)), search: await searchHealth(search) };
  log(`index_status${status.search.degraded ? ': searches degraded (lexical only)' : ''} (${took()})`);
  return { content: [{ type: 'text', text: JSON.stringify(status) }], structuredContent: { ...status } };
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

const reindexCall: ToolHandler = async (context, args, extra, took) => {
  const { root, indexDir, log } = context;
  if (!validateReindex(args))
    return toolError(
      `invalid arguments: ${validateReindex.errors?.map((e) => `${e.instancePath.slice(1) || 'arguments'} ${e.message}`).join('; ')}`,
    );
  let target = root;
  try {
    if (args.path !== undefined) target = join(root, confineToRoot(root, args.path));
  } catch (error) {
    if (error instanceof PathOutsideRootError) return toolError(`path refused: ${error.message}`);
    throw error;
  }
  if (!existsSync(target)) return toolError(`${args.path}: no such file or directory in ${root}`);
  const progress = progressReporter(extra._meta?.progressToken, (notification) => extra.sendNotification(notification));
  const run = context.reindexing.then(() =>
    new Indexer({ ...context.indexer, root, path: target, indexDir, signal: extra.signal, onEvent: progress }).run(),
  );
  context.reindexing = run.catch(() => {});
  try {
    const summary = await run;
    const f = summary.files;
    log(`reindex: ${f.added} added, ${f.changed} changed, ${f.deleted} deleted, ${f.unchanged} unchanged (${took()})`);
    return { content: [{ type: 'text', text: JSON.stringify(summary) }], structuredContent: { ...summary } };
  } catch (error) {
    log(`reindex failed: ${(error as Error).message}`);
    return toolError(`reindex failed: ${(error as Error).message}`);
  }
};

/** A JSON-RPC error with a plain message (McpError would prefix its code, and the client prefixes it again). */
function protocolError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
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
