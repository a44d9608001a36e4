/** Lua: functions and methods (`function M.new`, `function M:run`, `M.f = function`), local functions as private. */
import { defineLanguage } from '../language-record.js';

export const lua = defineLanguage({
  name: 'lua',
  extensions: ['.lua'],
  fileNames: ['.luacheckrc'],
  interpreters: ['lua', 'luajit', 'nvim'],
  aliases: ['luajit'],
  analysis: {
    kind: 'code',
    grammar: { package: '@tree-sitter-grammars/tree-sitter-lua', nativeOnly: true },
    callTypes: ['function_call'],
    table: {
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
    },
  },
});
