/**
 * The index as an MCP server: `codebase_search`, `find_references` and
 * `find_files_to_change` (read-only: code by meaning or name, a symbol's
 * uses, the files an issue points at), `index_status` (read-only) and
 * `reindex` (brings the index up to date, incrementally). registry.ts lists
 * them; each is one object in its own file under tools/ (mcp-tool.ts).
 *
 * Two levels: a service holds what every connection shares (one Searcher,
 * open for the life of the service, so a search pays for opening the index
 * once and catches up by itself after each reindex; the reindex queue), and
 * a light MCP server per connection (stdio) or per request (HTTP), made for
 * what its client may do (access.ts).
 *
 * The tools are declared with their JSON schemas directly (the SDK's
 * low-level handlers), so that MCP clients and the agent adapters see the
 * very same schema. http.ts serves the service over Streamable HTTP.
 */
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { CodebaseSearchTool, type CodebaseSearchToolOptions } from '../tool/codebase-search-tool.js';
import { FindFilesTool } from '../tool/find-files-tool.js';
import { FindReferencesTool } from '../tool/find-references-tool.js';
import { FULL_ACCESS, mayCall, type McpAccess } from './access.js';
import { safeLogger } from './log-line.js';
import { listedDefinition, type McpTool, type SharedState } from './mcp-tool.js';
import { MCP_TOOLS } from './registry.js';
import { ScreenedMcpServer } from './request-screen.js';
import { toolError } from './tool-answer.js';
import type { PostgresChoice } from '../store/open.js';

export interface CodebaseMcpServerOptions {
  /** The root the index covers. */
  root: string;
  /** Default `<root>/.ocvector`. */
  indexDir?: string;
  /** A shared PostgreSQL store to serve instead of the embedded index (searches, status and reindex all use it). */
  store?: PostgresChoice;
  /** How reindex indexes: the analysis model, the embedder for a new index, threads. */
  indexer?: SharedState['indexer'];
  /** Size budget and permission callback of codebase_search. */
  search?: Pick<CodebaseSearchToolOptions, 'budget' | 'permission' | 'searcherOptions' | 'searchWorkers'>;
  version?: string;
  /** One line per call and per problem, for stderr (stdout carries the protocol); control characters escaped (log-line.ts). */
  onLog?: (line: string) => void;
}

export interface CodebaseMcpServer {
  readonly mcp: McpServer;
  readonly tools: readonly Tool[];
  /** Waits for a reindex in progress, then closes the index and the connection. */
  close(): Promise<void>;
}

/** What all connections share, and a light MCP server for each. */
export interface CodebaseMcpService {
  /** Every tool: what a client with full access lists. */
  readonly tools: readonly Tool[];
  /** A new MCP server over the shared index, for one connection or one request, offering what `access` allows. */
  connect(access?: McpAccess): McpServer;
  /** Waits for a reindex in progress, then closes the index. */
  close(): Promise<void>;
}

/** One MCP server over the index, for one connection (stdio): the client may do everything. */
export function createCodebaseMcpServer(options: CodebaseMcpServerOptions): CodebaseMcpServer {
  const service = createCodebaseMcpService(options);
  const mcp = service.connect();
  return {
    mcp,
    tools: service.tools,
    async close() {
      await service.close();
      await mcp.close();
    },
  };
}

/** The shared state of the MCP server: the index is opened on the first call, and stays open until close(). */
export function createCodebaseMcpService(options: CodebaseMcpServerOptions): CodebaseMcpService {
  return createMcpServiceServing(MCP_TOOLS, options);
}

/**
 * The service, serving `tools` in the order clients list them, each of its
 * own name. Not exported by `ocvector/mcp` (its tools are MCP_TOOLS): a
 * test registers a tool of its own here, beside the built-in ones.
 */
export function createMcpServiceServing(
  tools: readonly McpTool[],
  options: CodebaseMcpServerOptions,
): CodebaseMcpService {
  const { root } = options;
  const indexDir = options.indexDir ?? join(root, '.ocvector');
  const { store } = options;
  const search = new CodebaseSearchTool({
    ...options.search,
    indexDir,
    ...(store ? { searcherOptions: { ...options.search?.searcherOptions, store } } : {}),
  });
  const shared: SharedState = {
    root,
    indexDir,
    ...(store ? { store } : {}),
    search,
    references: new FindReferencesTool(search),
    files: new FindFilesTool(search),
    indexer: options.indexer ?? {},
    reindexing: Promise.resolve(),
  };
  // Every line through one escaper: a caller's query or symbol cannot start a line of its own.
  const log = safeLogger(options.onLog);
  const version = options.version ?? '0.0.0';
  const registered = distinctlyNamed(tools).map((tool) => ({
    ...tool,
    listed: listedDefinition(tool),
  }));

  return {
    tools: registered.map((tool) => tool.listed),
    connect(access = FULL_ACCESS) {
      const tools = registered.filter((tool) => mayCall(access, tool)).map((tool) => tool.listed);
      const caller = {
        access,
        log: access.name === undefined ? log : (line: string) => log(`${access.name}: ${line}`),
      };
      // Malformed params (none, nested too deep) are answered -32602 before the SDK or a handler walks them.
      const mcp = new ScreenedMcpServer({ name: 'ocvector', version }, caller.log);
      // A message that is not JSON-RPC is dropped by the transport; say so, and serve on.
      mcp.server.onerror = (error) => caller.log(`protocol error: ${error.message}`);
      mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
      mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
        const { name, arguments: args = {} } = request.params;
        const tool = registered.find((candidate) => candidate.listed.name === name);
        if (!tool)
          throw protocolError(
            ErrorCode.InvalidParams,
            `unknown tool "${name}"; available: ${tools.map((listed) => listed.name).join(', ')}`,
          );
        // A tool this client does not list is one it may not call: a tool error says why.
        if (!mayCall(access, tool)) {
          caller.log(`${name} refused to ${access.name ?? 'this client'}`);
          return toolError(`${name} needs a token with write access; the token "${access.name}" may only search`);
        }
        const started = performance.now();
        return tool.handler(shared, caller, args, extra, () => `${Math.round(performance.now() - started)} ms`);
      });
      return mcp;
    },
    async close() {
      await shared.reindexing;
      await shared.search.close();
    },
  };
}

/** The tools as given, refused when two share a name (a call names one tool, and clients key tools by name). */
function distinctlyNamed(tools: readonly McpTool[]): readonly McpTool[] {
  const names = new Set<string>();
  for (const { name } of tools) {
    if (names.has(name)) throw new RangeError(`two MCP tools are named "${name}": each tool needs a name of its own`);
    names.add(name);
  }
  return tools;
}

/** A JSON-RPC error with a plain message (McpError would prefix its code, and the client prefixes it again). */
function protocolError(code: ErrorCode, message: string): Error {
  return Object.assign(new Error(message), { code });
}
