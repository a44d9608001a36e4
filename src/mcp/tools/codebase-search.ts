/** codebase_search over MCP: the agent tool's own name, description and schemas, so both see the very same tool. */
import {
  CODEBASE_SEARCH_DESCRIPTION,
  CODEBASE_SEARCH_NAME,
  CODEBASE_SEARCH_OUTPUT,
  CODEBASE_SEARCH_PARAMETERS,
} from '../../tool/schema.js';
import { shownValue } from '../log-line.js';
import type { McpTool } from '../mcp-tool.js';
import { structured } from '../tool-answer.js';
import { scoped } from './repository-scope.js';

export const codebaseSearch: McpTool = {
  name: CODEBASE_SEARCH_NAME,
  title: 'Search the codebase',
  description: CODEBASE_SEARCH_DESCRIPTION,
  inputSchema: CODEBASE_SEARCH_PARAMETERS,
  outputSchema: CODEBASE_SEARCH_OUTPUT,
  hints: { openWorldHint: false },
  access: 'read',
  async handler({ search }, { access, log }, raw, _extra, took) {
    const call = await scoped(search, CODEBASE_SEARCH_PARAMETERS, raw, access);
    const output =
      'error' in call ? { results: [], fallback_used: false, error: call.error } : await search.execute(call.args);
    log(
      `${CODEBASE_SEARCH_NAME} ${shownValue(raw.query ?? '')}: ${output.error ? `error: ${output.error}` : `${output.results.length} results`} (${took()})`,
    );
    return structured(output, output.error !== undefined);
  },
};
