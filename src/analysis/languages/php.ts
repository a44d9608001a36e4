/** PHP: namespaces (block form), classes, interfaces, traits, enums, methods, functions, properties, constants. */
import { defineLanguage } from '../language-record.js';

export const php = defineLanguage({
  name: 'php',
  extensions: ['.php', '.phtml', '.php8', '.php7'],
  interpreters: ['php'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-php', export: 'php' },
    callTypes: [
      'function_call_expression',
      'member_call_expression',
      'scoped_call_expression',
      'nullsafe_member_call_expression',
      'object_creation_expression',
    ],
    table: {
      comments: { line: ['//', '#'], block: [['/*', '*/']] },
      defaultAccess: 'public',
      parameterSyntax: 'type name',
      accessKeywords: { public: 'public', private: 'private', protected: 'protected' },
      constructorNames: ['__construct'],
      query: `
(namespace_definition name: (_) @name body: (_) @body) @definition.namespace
(class_declaration name: (name) @name body: (_) @body) @definition.class
(interface_declaration name: (name) @name body: (_) @body) @definition.interface
(trait_declaration name: (name) @name body: (_) @body) @definition.trait
(enum_declaration name: (name) @name body: (_) @body) @definition.enum
(function_definition name: (name) @name parameters: (_) @parameters return_type: (_)? @return body: (_) @body) @definition.function
(method_declaration name: (name) @name parameters: (_) @parameters return_type: (_)? @return body: (_)? @body) @definition.method
(property_declaration type: (_)? @return (property_element name: (variable_name (name) @name))) @definition.property
(const_declaration (const_element (name) @name)) @definition.constant

(function_call_expression function: (_) @reference.calls)
(member_call_expression name: (_) @reference.calls)
(scoped_call_expression) @reference.calls
(object_creation_expression [(name) (qualified_name)] @reference.uses)
(base_clause (_) @reference.inherits)
(class_interface_clause (_) @reference.implements)
(declaration_list (use_declaration (_) @reference.implements))
(namespace_use_clause . [(name) (qualified_name)] @import)
`,
    },
  },
});
