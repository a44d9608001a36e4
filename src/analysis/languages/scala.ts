/** Scala: classes, objects, traits, enums, functions (and abstract declarations), vals and vars, type members, givens. */
import { defineLanguage } from '../language-record.js';

export const scala = defineLanguage({
  name: 'scala',
  extensions: ['.scala', '.sc', '.sbt'],
  interpreters: ['scala', 'amm'],
  aliases: ['sc', 'sbt'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-scala' },
    callTypes: ['call_expression'],
    table: {
      defaultAccess: 'public',
      accessKeywords: { private: 'private', protected: 'protected' },
      query: `
(class_definition name: (identifier) @name) @definition.class
(object_definition name: (identifier) @name) @definition.class
(trait_definition name: (identifier) @name) @definition.trait
(enum_definition name: (identifier) @name) @definition.enum
(function_definition name: (identifier) @name return_type: (_)? @return) @definition.function
(function_declaration name: (identifier) @name return_type: (_)? @return) @definition.function
(val_definition pattern: (identifier) @name type: (_)? @return) @definition.property
(var_definition pattern: (identifier) @name type: (_)? @return) @definition.property
(val_declaration name: (identifier) @name type: (_)? @return) @definition.property
(type_definition name: (type_identifier) @name) @definition.type-alias
(given_definition name: (identifier) @name) @definition.constant

(call_expression function: (_) @reference.calls)
(extends_clause (_) @reference.inherits)
(instance_expression . (_) @reference.uses)
(import_declaration) @import
`,
    },
  },
});
