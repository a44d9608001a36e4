/** Elixir: modules, protocols, impls, functions and macros (public and private), from `def…` calls; `@doc` and `@moduledoc` as descriptions. */
import { defineLanguage } from '../language-record.js';

/** A definition's head: `name(args)`, or `name(args) when guard`, or a bare `name`. */
const HEAD = `[
  (call target: (identifier) @name (arguments)? @parameters)
  (binary_operator left: (call target: (identifier) @name (arguments)? @parameters) operator: "when")
  (identifier) @name
]`;

/**
 * Definitions are calls at the top of the file or directly in a `do`
 * block (statementParents: checked in JavaScript, not by a parent in each
 * pattern, which made the query slow to compile); which calls, their
 * keyword says (checked in JavaScript too, rather than by a predicate on
 * every call).
 */
const DEFINITIONS = `
(call target: (identifier) @keyword (arguments . (alias) @name) (do_block)? @body) @definition.module @statement
(call target: (identifier) @keyword (arguments . (alias) @trait (keywords (pair value: (alias) @name))) (do_block)? @body) @definition.impl @statement
(call target: (identifier) @keyword (arguments . ${HEAD}) (do_block)? @body) @definition.function @statement
(call target: (identifier) @keyword (#match? @keyword "^(alias|import|require|use)$") (arguments . (alias) @import)) @statement
(call target: (identifier) @keyword (#eq? @keyword "use") (arguments . (alias) @reference.uses)) @statement`;

export const elixir = defineLanguage({
  name: 'elixir',
  extensions: ['.ex', '.exs'],
  interpreters: ['elixir'],
  aliases: ['ex', 'exs'],
  analysis: {
    kind: 'code',
    grammar: { package: 'tree-sitter-elixir' },
    callTypes: ['call'],
    table: {
      comments: { line: ['#'] },
      defaultAccess: 'public',
      statementParents: ['source', 'do_block'],
      accessKeywords: { defp: 'private', defmacrop: 'private', defguardp: 'private', defnp: 'private' },
      docAttribute: /^@(module)?doc\b/,
      containerDocAttribute: /^@moduledoc\b/,
      betweenDocAndDefinition: ['unary_operator'],
      implName: (type, protocol) => `impl ${protocol} for ${type}`,
      keywords: {
        module: { defmodule: 'module', defprotocol: 'interface' },
        impl: { defimpl: 'impl' },
        function: {
          def: 'function',
          defp: 'function',
          defdelegate: 'function',
          defguard: 'function',
          defguardp: 'function',
          defn: 'function',
          defnp: 'function',
          defmacro: 'macro',
          defmacrop: 'macro',
        },
      },
      ignoredCalls:
        /^(def[a-z]*|alias|import|require|use|quote|unquote|case|cond|if|unless|with|for|try|receive|raise|moduledoc|doc|spec|type|typep|opaque|callback|impl|behaviour)$/,
      // Everything is a call in Elixir: relations come from the calls that are
      // statements of a body, the stages of a pipe and one-line `do:` bodies,
      // not from every nested argument.
      query: `${DEFINITIONS}

(do_block (call target: [(identifier) (dot)] @reference.calls))
(binary_operator operator: "|>" right: (call target: [(identifier) (dot)] @reference.calls))
(keywords (pair value: (call target: [(identifier) (dot)] @reference.calls)))
`,
    },
  },
});
