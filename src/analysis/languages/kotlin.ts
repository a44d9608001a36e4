/** Kotlin: classes, interfaces, enums, objects, functions (extension functions as methods of their receiver), constructors, properties, type aliases. */
import { defineLanguage } from '../language-record.js';

export const kotlin = defineLanguage({
  name: 'kotlin',
  extensions: ['.kt', '.kts'],
  interpreters: ['kotlin'],
  aliases: ['kt', 'kts'],
  analysis: {
    kind: 'code',
    grammar: { package: '@tree-sitter-grammars/tree-sitter-kotlin' },
    callTypes: ['call_expression'],
    table: {
      defaultAccess: 'public',
      accessKeywords: { public: 'public', private: 'private', protected: 'protected', internal: 'internal' },
      query: `
(class_declaration "interface" name: (identifier) @name (class_body)? @body) @definition.interface
(class_declaration (modifiers (class_modifier) @_enum (#eq? @_enum "enum")) name: (identifier) @name (enum_class_body)? @body) @definition.enum
(class_declaration name: (identifier) @name (class_body)? @body) @definition.class
(object_declaration name: (identifier) @name (class_body)? @body) @definition.class
(companion_object name: (identifier) @name (class_body)? @body) @definition.class
(function_declaration (user_type) @receiver name: (identifier) @name (function_value_parameters) @parameters . [(user_type) (nullable_type) (function_type)]? @return (function_body)? @body) @definition.function
(function_declaration name: (identifier) @name (function_value_parameters) @parameters . [(user_type) (nullable_type) (function_type)]? @return (function_body)? @body) @definition.function
(secondary_constructor "constructor" @name (function_value_parameters) @parameters) @definition.constructor
(property_declaration (variable_declaration (identifier) @name [(user_type) (nullable_type) (function_type)]? @return)) @definition.property
(type_alias type: (identifier) @name) @definition.type-alias

(call_expression . (_) @reference.calls)
(delegation_specifier (_) @reference.inherits)
(import (qualified_identifier) @import)
`,
    },
  },
});
