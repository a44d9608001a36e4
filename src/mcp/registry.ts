/**
 * The tools the MCP server serves, one line each, in the order clients list
 * them. A tool is one object in its own file under tools/ (mcp-tool.ts says
 * what it holds); a new tool is that file and one line here. A client whose
 * access may not write neither lists nor may call a tool whose access is 'write'.
 */
import type { McpTool } from './mcp-tool.js';
import { codebaseSearch } from './tools/codebase-search.js';
import { findFilesToChange } from './tools/find-files-to-change.js';
import { findReferences } from './tools/find-references.js';
import { indexStatus } from './tools/index-status.js';
import { reindex } from './tools/reindex.js';

export const MCP_TOOLS: readonly McpTool[] = [codebaseSearch, findReferences, findFilesToChange, indexStatus, reindex];
