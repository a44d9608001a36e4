/**
 * Every tool of the MCP server, one object each: what clients list (its
 * definition, definitions.ts), what answers a call (its handler, tools.ts),
 * and whether it reads or writes the index (its access). The server lists
 * and calls these and nothing else; a client whose access may not write
 * neither lists nor may call a tool whose access is 'write'. A new tool is
 * a definition, a handler and one entry here.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolAccess } from './access.js';
import {
  filesDefinition,
  referencesDefinition,
  reindexDefinition,
  searchDefinition,
  statusDefinition,
} from './definitions.js';
import {
  filesCall,
  referencesCall,
  reindexCall,
  searchCall,
  statusCall,
  type SharedState,
  type ToolHandler,
} from './tools.js';

export interface McpTool {
  /** What clients list; the search tools' schemas (codebase_search, find_references, find_files_to_change) come from the agent tools. */
  readonly definition: (shared: SharedState) => Tool;
  readonly handler: ToolHandler;
  readonly access: ToolAccess;
}

export const MCP_TOOLS: readonly McpTool[] = [
  { definition: searchDefinition, handler: searchCall, access: 'read' },
  { definition: referencesDefinition, handler: referencesCall, access: 'read' },
  { definition: filesDefinition, handler: filesCall, access: 'read' },
  { definition: statusDefinition, handler: statusCall, access: 'read' },
  { definition: reindexDefinition, handler: reindexCall, access: 'write' },
];

/** A tool as a client lists it: its definition, with readOnlyHint said by its access. */
export function listedDefinition(tool: McpTool, shared: SharedState): Tool {
  const { annotations: { title, ...hints } = {}, ...definition } = tool.definition(shared);
  // In the order clients always saw: title, readOnlyHint, then the other hints.
  const annotations = { ...(title === undefined ? {} : { title }), readOnlyHint: tool.access === 'read', ...hints };
  return { ...definition, annotations };
}
