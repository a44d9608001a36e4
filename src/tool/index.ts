export { CodebaseSearchTool } from './codebase-search-tool.js';
export type { AgentTool, CodebaseSearchToolOptions, PermissionCallback, PermissionDecision, PermissionRequest } from './codebase-search-tool.js';
export {
  CODEBASE_SEARCH_NAME,
  CODEBASE_SEARCH_DESCRIPTION,
  CODEBASE_SEARCH_PARAMETERS,
  CODEBASE_SEARCH_OUTPUT,
  DEFAULT_TOOL_K,
  MAX_TOOL_K,
} from './schema.js';
export type { CodebaseSearchArgs, CodebaseSearchHit, CodebaseSearchOutput, JsonSchema } from './schema.js';
export { DEFAULT_TOOL_BUDGET } from './budget.js';
export type { ToolBudget } from './budget.js';
export { redactSecrets, isSecretPath, REDACTED } from './secrets.js';
export { confineToRoot, PathOutsideRootError } from './paths.js';
export {
  toOllamaTool,
  toOpenAITool,
  toAnthropicTool,
  dispatchToolCall,
  ollamaToolMessage,
  openAIToolMessage,
  anthropicToolResult,
} from './adapters.js';
export type { FunctionToolDefinition, AnthropicToolDefinition, ToolCallRequest, ToolCallResult } from './adapters.js';
