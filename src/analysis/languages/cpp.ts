/** C++: C's elements, plus namespaces, classes, methods (in and out of their class), templates, aliases. */
import { defineLanguage } from '../language-record.js';
import { C_DEFINITIONS, LONE_MACRO_LINE } from './c.js';

export const cpp = defineLanguage({
  name: 'cpp',
  extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp', '.inl'],
  aliases: ['c++', 'cxx', 'cc', 'hpp'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-cpp' },
    callTypes: ['call_expression', 'new_expression'],
    table: {
      // Members' access depends on `public:` sections, which a query cannot
      // follow; what is declared is taken as public.
      defaultAccess: 'public',
      parameterSyntax: 'type name',
      constructorIsTypeName: true,
      blankLines: LONE_MACRO_LINE,
      wrappers: ['template_declaration'],
      query: `${C_DEFINITIONS}
(function_definition declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.function
(function_definition declarator: (reference_declarator (function_declarator declarator: (_) @name parameters: (_) @parameters))) @definition.function
(field_declaration type: (_) @return declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.function
(field_declaration_list (declaration declarator: (function_declarator declarator: (_) @name parameters: (_) @parameters)) @definition.function)
(class_specifier name: (_) @name body: (field_declaration_list) @body) @definition.class
(namespace_definition name: (_) @name body: (declaration_list) @body) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type-alias
(concept_definition name: (identifier) @name) @definition.interface

(base_class_clause [(type_identifier) (qualified_identifier) (template_type)] @reference.inherits)
(new_expression type: (_) @reference.uses)
`,
    },
  },
});
