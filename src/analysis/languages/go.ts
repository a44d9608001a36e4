/** Go: functions, methods (qualified by their receiver), structs, interfaces, type aliases, constants. */
import { defineLanguage } from '../language-record.js';

export const go = defineLanguage({
  name: 'go',
  extensions: ['.go'],
  aliases: ['golang'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-go' },
    callTypes: ['call_expression'],
    table: {
      defaultAccess: 'internal',
      accessByCase: true,
      parameterSyntax: 'name type',
      wrappers: ['type_declaration', 'const_declaration', 'var_declaration'],
      query: `
(function_declaration name: (identifier) @name result: (_)? @return) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [(type_identifier) @receiver (pointer_type (type_identifier) @receiver) (generic_type type: (type_identifier) @receiver) (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name
  result: (_)? @return) @definition.method
(type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface
(type_spec name: (type_identifier) @name type: [(type_identifier) (qualified_type) (generic_type) (function_type) (map_type) (slice_type) (array_type) (pointer_type) (channel_type)]) @definition.type-alias
(type_alias name: (type_identifier) @name) @definition.type-alias
(struct_type (field_declaration_list (field_declaration name: (field_identifier) @name type: (_) @return) @definition.field))
(interface_type (method_elem name: (field_identifier) @name result: (_)? @return) @definition.method)
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))

(call_expression function: [(identifier) @reference.calls (selector_expression) @reference.calls])
(struct_type (field_declaration_list (field_declaration !name type: [(type_identifier) (qualified_type)] @reference.inherits)))
(interface_type (type_elem [(type_identifier) (qualified_type)] @reference.inherits))
(import_spec path: (_) @import)
`,
    },
  },
});
