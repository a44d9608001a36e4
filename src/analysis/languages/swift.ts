/** Swift: classes, structs, enums, actors, protocols, extensions (as impl), functions, initialisers, properties, type aliases. */
import { defineLanguage } from '../language-record.js';

export const swift = defineLanguage({
  name: 'swift',
  extensions: ['.swift'],
  interpreters: ['swift'],
  analysis: {
    kind: 'code',
    // Optional (its dependency tree-sitter-cli downloads a binary from GitHub
    // at install): the linux-x64 binding is shipped in grammars/ as well.
    grammar: { package: 'tree-sitter-swift', shipped: 'tree-sitter-swift' },
    callTypes: ['call_expression', 'macro_invocation'],
    table: {
      defaultAccess: 'internal',
      accessKeywords: {
        public: 'public',
        open: 'public',
        internal: 'internal',
        private: 'private',
        fileprivate: 'private',
      },
      // Parameters are children of the declaration itself, not of a list.
      parameterTypes: ['parameter'],
      implName: (type) => `extension ${type}`,
      query: `
(class_declaration declaration_kind: "class" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (type_identifier) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (type_identifier) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (type_identifier) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @definition.impl
(protocol_declaration name: (type_identifier) @name) @definition.interface
(function_declaration name: (simple_identifier) @name) @definition.function @parameters
(protocol_function_declaration name: (simple_identifier) @name) @definition.method @parameters
(init_declaration "init" @name) @definition.constructor @parameters
(deinit_declaration "deinit" @name) @definition.method
(property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property
(protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property
(typealias_declaration name: (type_identifier) @name) @definition.type-alias

(call_expression . (_) @reference.calls)
(inheritance_specifier inherits_from: (_) @reference.inherits)
(import_declaration (identifier) @import)
`,
    },
  },
});
