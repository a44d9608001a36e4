/** The tool layer's internal exports (its public ones are in src/index.ts). */
export {
  CODEBASE_SEARCH_NAME,
  CODEBASE_SEARCH_DESCRIPTION,
  CODEBASE_SEARCH_PARAMETERS,
  CODEBASE_SEARCH_OUTPUT,
  DEFAULT_TOOL_K,
  MAX_TOOL_K,
} from './schema.js';
export { DEFAULT_TOOL_BUDGET } from './budget.js';
export { redactSecrets, isSecretPath, REDACTED } from './secrets.js';
export { confineToRoots } from './paths.js';
export { FindReferencesTool, fitReferences } from './find-references-tool.js';
export { FIND_REFERENCES_NAME, FIND_REFERENCES_PARAMETERS, FIND_REFERENCES_OUTPUT } from './references-schema.js';
export { FindFilesTool, fitFiles } from './find-files-tool.js';
export {
  FIND_FILES_NAME,
  FIND_FILES_PARAMETERS,
  FIND_FILES_OUTPUT,
  DEFAULT_FILES_LIMIT,
  MAX_FILES_LIMIT,
} from './files-schema.js';
