/**
 * Haskell: functions (a type signature and its equations are one element),
 * data types and newtypes (as structs), type synonyms, type classes (as
 * traits) and instances (as impls, `instance Show Foo`).
 */
import { defineLanguage } from '../language-record.js';

export const haskell = defineLanguage({
  name: 'haskell',
  extensions: ['.hs', '.hs-boot', '.lhs'],
  interpreters: ['runhaskell', 'runghc', 'stack'],
  aliases: ['hs'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-haskell' },
    callTypes: [],
    table: {
      comments: { line: ['--'], block: [['{-', '-}']] },
      defaultAccess: 'public',
      commentTypes: ['comment', 'haddock'],
      mergeClauses: true,
      implName: (type, typeClass) => `instance ${typeClass} ${type}`,
      query: `
(signature name: (variable) @name type: (_) @return) @definition.function
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function
(data_type name: (name) @name) @definition.struct
(newtype name: (name) @name) @definition.struct
(type_synomym name: (name) @name) @definition.type-alias
(class name: (_) @name declarations: (_)? @body) @definition.trait
(instance name: (_) @trait patterns: (type_patterns . (_) @name) declarations: (_)? @body) @definition.impl

(apply function: [(variable) (qualified)] @reference.calls)
(class context: (context (apply constructor: (name) @reference.inherits)))
(import module: (module) @import)
`,
    },
  },
});
