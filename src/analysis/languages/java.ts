/** Java: classes, interfaces, enums, records, annotations, methods, constructors, fields. */
import { defineLanguage } from '../language-record.js';

export const java = defineLanguage({
  name: 'java',
  extensions: ['.java'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-java' },
    callTypes: ['method_invocation', 'object_creation_expression'],
    table: {
      defaultAccess: 'internal', // package-private
      parameterSyntax: 'type name',
      accessKeywords: { public: 'public', private: 'private', protected: 'protected' },
      query: `
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration type: (_) @return name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.constructor
(compact_constructor_declaration name: (identifier) @name) @definition.constructor
(field_declaration type: (_) @return declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration type: (_) @return declarator: (variable_declarator name: (identifier) @name)) @definition.constant

(method_invocation) @reference.calls
(object_creation_expression type: (_) @reference.uses)
(superclass (_) @reference.inherits)
(super_interfaces (type_list (_) @reference.implements))
(extends_interfaces (type_list (_) @reference.inherits))
(import_declaration (_) @import)
`,
    },
  },
});
