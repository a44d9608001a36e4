/** Lua: functions and methods (`function M.new`, `function M:run`, `M.f = function`), local functions as private. */
import type { GenericLanguage } from '../generic/spec.js';

export const lua: GenericLanguage = {
  comments: { line: ['--'], block: [['--[[', ']]']] },
  defaultAccess: 'public',
  accessKeywords: { local: 'private' },
  query: `
(function_declaration name: (_) @name parameters: (_) @parameters) @definition.function
(assignment_statement (variable_list . name: [(identifier) (dot_index_expression)] @name) (expression_list . value: (function_definition parameters: (_) @parameters body: (_)? @body))) @definition.function
(field name: (identifier) @name value: (function_definition parameters: (_) @parameters body: (_)? @body)) @definition.function

(function_call name: (_) @reference.calls)
(function_call name: (identifier) @_require (#eq? @_require "require") arguments: (arguments . (string content: (_) @import)))
`,
};
