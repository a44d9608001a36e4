/** C: functions (and prototypes), structs, unions, enums, typedefs, macros. C++ builds on this query. */
import { defineLanguage } from '../language-record.js';

/** Function declarators, bare or under one or two pointers (`char **name(void)`). */
const functionDeclarator = (inner: string) => `[
  (function_declarator declarator: ${inner} @name parameters: (_) @parameters)
  (pointer_declarator declarator: (function_declarator declarator: ${inner} @name parameters: (_) @parameters))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: ${inner} @name parameters: (_) @parameters)))
]`;

export const C_DEFINITIONS = `
(function_definition type: (_) @return declarator: ${functionDeclarator('(_)')}) @definition.function
(declaration type: (_) @return declarator: ${functionDeclarator('(identifier)')}) @definition.function
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum
(type_definition type: (struct_specifier !name body: (_) @body) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (union_specifier !name body: (_) @body) declarator: (type_identifier) @name) @definition.struct
(type_definition type: (enum_specifier !name body: (_) @body) declarator: (type_identifier) @name) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type-alias
(type_definition declarator: (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.type-alias
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name parameters: (_) @parameters) @definition.macro
(field_declaration_list (field_declaration type: (_) @return declarator: (field_identifier) @name) @definition.field)

(call_expression function: (_) @reference.calls)
(preproc_include path: (_) @import)
`;

/** A macro alone on its line, without a semicolon: `ABSL_NAMESPACE_BEGIN`, `G_BEGIN_DECLS`, `Q_OBJECT`. */
export const LONE_MACRO_LINE = /^[ \t]*[A-Z_][A-Z0-9_]{2,}[ \t]*$/gm;

export const c = defineLanguage({
  name: 'c',
  extensions: ['.c', '.h'],
  aliases: ['h'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-c' },
    callTypes: ['call_expression'],
    table: {
      blankLines: LONE_MACRO_LINE,
      defaultAccess: 'public',
      parameterSyntax: 'type name',
      accessKeywords: { static: 'private' },
      query: C_DEFINITIONS,
    },
  },
});
