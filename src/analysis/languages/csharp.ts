/** C#: namespaces, classes, structs, records, interfaces, enums, methods, constructors, properties, fields, delegates, events (signals). */
import { defineLanguage } from '../language-record.js';

export const csharp = defineLanguage({
  name: 'csharp',
  extensions: ['.cs', '.csx'],
  aliases: ['cs', 'c#', 'c-sharp', 'dotnet'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-c-sharp', nativeOnly: true },
    callTypes: ['invocation_expression', 'object_creation_expression'],
    table: {
      defaultAccess: 'internal',
      parameterSyntax: 'type name',
      memberAccess: 'private',
      accessKeywords: { public: 'public', private: 'private', protected: 'protected', internal: 'internal' },
      query: `
(namespace_declaration name: (_) @name body: (_) @body) @definition.namespace
(class_declaration name: (identifier) @name body: (_) @body) @definition.class
(struct_declaration name: (identifier) @name body: (_) @body) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name body: (_) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (_) @body) @definition.enum
(method_declaration returns: (_) @return name: (identifier) @name) @definition.method
(local_function_statement type: (_) @return name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.constructor
(destructor_declaration name: (identifier) @name) @definition.method
(operator_declaration type: (_) @return) @definition.method
(property_declaration type: (_) @return name: (identifier) @name accessors: (_)? @body) @definition.property
(indexer_declaration type: (_) @return (bracketed_parameter_list) @parameters) @definition.property
(field_declaration (variable_declaration type: (_) @return (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration (variable_declaration type: (_) @return (variable_declarator name: (identifier) @name))) @definition.signal
(event_declaration type: (_) @return name: (identifier) @name) @definition.signal
(delegate_declaration type: (_) @return name: (identifier) @name) @definition.delegate

(invocation_expression function: (_) @reference.calls)
(object_creation_expression type: (_) @reference.uses)
(base_list (_) @reference.inherits)
(using_directive (_) @import)
`,
    },
  },
});
