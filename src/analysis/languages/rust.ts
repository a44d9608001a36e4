/** Rust: functions, methods in impl blocks (`impl Display for Foo`), structs, enums, traits, modules, macros, constants. */
import { defineLanguage } from '../language-record.js';

export const rust = defineLanguage({
  name: 'rust',
  extensions: ['.rs'],
  aliases: ['rs'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-rust' },
    callTypes: ['call_expression', 'macro_invocation'],
    table: {
      defaultAccess: 'private',
      accessKeywords: {
        pub: 'public',
        'pub(crate)': 'internal',
        'pub(super)': 'internal',
        'pub(self)': 'private',
        'pub(in)': 'internal',
      },
      attributeLine: /^#!?\[/,
      query: `
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type-alias
(associated_type name: (type_identifier) @name) @definition.type-alias
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(impl_item trait: (_)? @trait type: (_) @name) @definition.impl
(const_item name: (identifier) @name type: (_) @return) @definition.constant
(static_item name: (identifier) @name type: (_) @return) @definition.constant
(field_declaration_list (field_declaration name: (field_identifier) @name type: (_) @return) @definition.field)

(call_expression function: [(identifier) (scoped_identifier) (field_expression field: (field_identifier))] @reference.calls)
(macro_invocation macro: (identifier) @reference.calls)
(trait_item bounds: (trait_bounds [(type_identifier) (scoped_type_identifier) (generic_type)] @reference.inherits))
(impl_item trait: (_) @reference.implements)
(use_declaration argument: (_) @import)
`,
    },
  },
});
