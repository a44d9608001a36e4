/** find_references over MCP: the agent tool's own name, description and schemas, so both see the very same tool. */
import {
  FIND_REFERENCES_DESCRIPTION,
  FIND_REFERENCES_NAME,
  FIND_REFERENCES_OUTPUT,
  FIND_REFERENCES_PARAMETERS,
} from '../../tool/references-schema.js';
import { shownValue } from '../log-line.js';
import type { McpTool } from '../mcp-tool.js';
import { structured } from '../tool-answer.js';
import { scoped } from './repository-scope.js';

export const findReferences: McpTool = {
  name: FIND_REFERENCES_NAME,
  title: 'Find references',
  description: FIND_REFERENCES_DESCRIPTION,
  inputSchema: FIND_REFERENCES_PARAMETERS,
  outputSchema: FIND_REFERENCES_OUTPUT,
  hints: { openWorldHint: false },
  access: 'read',
  async handler({ search, references }, { access, log }, raw, _extra, took) {
    const call = await scoped(search, FIND_REFERENCES_PARAMETERS, raw, access);
    const symbol = typeof raw.symbol === 'string' ? raw.symbol : '';
    const output =
      'error' in call
        ? { symbol, definitions: [], files: [], total: 0, total_files: 0, truncated: false, error: call.error }
        : await references.execute(call.args);
    log(
      `${FIND_REFERENCES_NAME} ${shownValue(raw.symbol ?? '')}: ${output.error ? `error: ${output.error}` : `${output.total} lines in ${output.total_files} files`} (${took()})`,
    );
    return structured(output, output.error !== undefined);
  },
};
