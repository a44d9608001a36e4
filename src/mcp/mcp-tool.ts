/**
 * What an MCP tool of the server is: one object holding what clients list
 * (its name, title, description, schemas and hints), whether it reads or
 * writes the index (its access), and what answers a call (its handler). Each
 * tool is one file under tools/; registry.ts lists them.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { IndexerOptions } from '../indexing/indexer.js';
import type { PostgresChoice } from '../store/open.js';
import type { CodebaseSearchTool } from '../tool/codebase-search-tool.js';
import type { FindFilesTool } from '../tool/find-files-tool.js';
import type { FindReferencesTool } from '../tool/find-references-tool.js';
import type { McpAccess, ToolAccess } from './access.js';

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

/**
 * What answers a call. It gets the state every connection shares and the
 * caller; the server has checked the caller may use the tool before it runs.
 */
export type ToolHandler = (
  shared: SharedState,
  caller: Caller,
  args: Record<string, unknown>,
  extra: RequestExtra,
  took: () => string,
) => Promise<CallToolResult>;

/** A JSON schema of an object, as a tool's arguments and answer are described. */
export interface ObjectSchema {
  readonly type: 'object';
  readonly [keyword: string]: unknown;
}

export interface McpTool {
  readonly name: string;
  /** For people; clients show it, and it is the title of the listed annotations too. */
  readonly title: string;
  /** For the model: when to call the tool and what it answers. */
  readonly description: string;
  readonly inputSchema: ObjectSchema;
  /** The schema of structured answers; clients check answers against it. */
  readonly outputSchema?: ObjectSchema;
  /** The annotations' other hints; readOnlyHint is said by the access, so that the two cannot disagree. */
  readonly hints: Omit<ToolAnnotations, 'title' | 'readOnlyHint'>;
  /** Whether it reads or writes the index: a client that may not write neither lists nor calls a 'write' tool. */
  readonly access: ToolAccess;
  readonly handler: ToolHandler;
}

/** A tool as clients list it (tools/list), its fields and its annotations' hints in the order clients always saw. */
export function listedDefinition(tool: McpTool): Tool {
  const { name, title, description, inputSchema, outputSchema, hints, access } = tool;
  return {
    name,
    title,
    description,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(outputSchema === undefined ? {} : { outputSchema: outputSchema as Tool['outputSchema'] }),
    annotations: { title, readOnlyHint: access === 'read', ...hints },
  };
}
