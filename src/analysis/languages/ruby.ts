/** Ruby: modules, classes, methods (`def self.x` too), constants, attributes; mixins and requires. */
import { defineLanguage } from '../language-record.js';

export const ruby = defineLanguage({
  name: 'ruby',
  extensions: ['.rb', '.rake', '.gemspec', '.ru', '.rbi'],
  fileNames: ['Rakefile', 'Gemfile', 'Guardfile', 'Podfile', 'Vagrantfile', 'Brewfile', 'Capfile', 'Fastfile'],
  interpreters: ['ruby', 'jruby'],
  aliases: ['rb'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-ruby' },
    callTypes: ['call'],
    table: {
      // `private` opens a section that a query cannot follow: methods count as public.
      comments: { line: ['#'], block: [['=begin', '=end']] },
      defaultAccess: 'public',
      constructorNames: ['initialize'],
      // Attributes and mixins are declared by calls in a class or module body (the body_statement
      // captured as @statement stands directly in one: a method's body is a body_statement too).
      statementParents: ['class', 'module'],
      keywords: { property: { attr_reader: 'property', attr_writer: 'property', attr_accessor: 'property' } },
      query: `
(module name: [(constant) (scope_resolution)] @name) @definition.module
(class name: [(constant) (scope_resolution)] @name) @definition.class
(singleton_class value: (_) @name) @definition.class
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
(body_statement (call method: (identifier) @keyword arguments: (argument_list (simple_symbol) @name)) @definition.property) @statement

(call method: (identifier) @reference.calls)
(superclass (_) @reference.inherits)
(body_statement (call method: (identifier) @_mixin (#match? @_mixin "^(include|extend|prepend)$") arguments: (argument_list [(constant) (scope_resolution)] @reference.implements))) @statement
(program (call method: (identifier) @_require (#match? @_require "^require(_relative)?$") arguments: (argument_list (string (string_content) @import))))
`,
    },
  },
});
