/** Zig: functions, and the structs, enums and unions that constants name (`const Edit = struct { … }`), their fields, typed constants. */
import { defineLanguage } from '../language-record.js';

export const zig = defineLanguage({
  name: 'zig',
  extensions: ['.zig', '.zon'],
  analysis: {
    kind: 'code',
    grammar: { package: '@tree-sitter-grammars/tree-sitter-zig' },
    callTypes: ['call_expression'],
    table: {
      comments: { line: ['//'] },
      defaultAccess: 'private',
      accessKeywords: { pub: 'public' },
      query: `
(function_declaration name: (identifier) @name (parameters) @parameters type: (_)? @return) @definition.function
(variable_declaration (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name (union_declaration)) @definition.struct
(variable_declaration (identifier) @name (opaque_declaration)) @definition.struct
(variable_declaration (identifier) @name (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name (error_set_declaration)) @definition.enum
(source_file (variable_declaration (identifier) @name type: (_) @return) @definition.constant)
(container_field name: (identifier) @name type: (_) @return) @definition.field

(call_expression function: (_) @reference.calls)
(builtin_function (builtin_identifier) @_import (#eq? @_import "@import") (arguments (string (string_content) @import)))
`,
    },
  },
});
