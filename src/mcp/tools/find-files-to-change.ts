/** find_files_to_change over MCP: the agent tool's own name, description and schemas, so both see the very same tool. */
import {
  FIND_FILES_DESCRIPTION,
  FIND_FILES_NAME,
  FIND_FILES_OUTPUT,
  FIND_FILES_PARAMETERS,
} from '../../tool/files-schema.js';
import { shownValue } from '../log-line.js';
import type { McpTool } from '../mcp-tool.js';
import { structured } from '../tool-answer.js';
import { scoped } from './repository-scope.js';

export const findFilesToChange: McpTool = {
  name: FIND_FILES_NAME,
  title: 'Find the files to change',
  description: FIND_FILES_DESCRIPTION,
  inputSchema: FIND_FILES_PARAMETERS,
  outputSchema: FIND_FILES_OUTPUT,
  hints: { openWorldHint: false },
  access: 'read',
  async handler({ search, files }, { access, log }, raw, _extra, took) {
    const call = await scoped(search, FIND_FILES_PARAMETERS, raw, access);
    const output =
      'error' in call ? { files: [], fallback_used: false, error: call.error } : await files.execute(call.args);
    // shownValue shows the issue's first characters and its length: the whole may be 100,000 characters.
    log(
      `${FIND_FILES_NAME} ${shownValue(raw.issue ?? '')}: ${output.error ? `error: ${output.error}` : `${output.files.length} files`} (${took()})`,
    );
    return structured(output, output.error !== undefined);
  },
};
