/** Elixir: modules, protocols, impls, functions and macros (public and private), from `def…` calls; `@doc` and `@moduledoc` as descriptions. */
import type { GenericLanguage } from '../generic/spec.js';

const DEF = '"^(def|defp|defdelegate|defguard|defguardp|defn|defnp)$"';
const DEFMACRO = '"^(defmacro|defmacrop)$"';
/** A definition's head: `name(args)`, or `name(args) when guard`. */
const head = `[
  (call target: (identifier) @name (arguments)? @parameters)
  (binary_operator left: (call target: (identifier) @name (arguments)? @parameters) operator: "when")
  (identifier) @name
]`;

export const elixir: GenericLanguage = {
  comments: { line: ['#'] },
  defaultAccess: 'public',
  accessKeywords: { defp: 'private', defmacrop: 'private', defguardp: 'private', defnp: 'private' },
  docAttribute: /^@(module)?doc\b/,
  betweenDocAndDefinition: ['unary_operator'],
  implName: (type, protocol) => `impl ${protocol} for ${type}`,
  query: `
(call target: (identifier) @_def (#eq? @_def "defmodule") (arguments . (alias) @name) (do_block)? @body) @definition.module
(call target: (identifier) @_def (#eq? @_def "defprotocol") (arguments . (alias) @name) (do_block)? @body) @definition.interface
(call target: (identifier) @_def (#eq? @_def "defimpl") (arguments . (alias) @trait (keywords (pair value: (alias) @name))) (do_block)? @body) @definition.impl
(call target: (identifier) @_def (#match? @_def ${DEF}) (arguments . ${head}) (do_block)? @body) @definition.function
(call target: (identifier) @_def (#match? @_def ${DEFMACRO}) (arguments . ${head}) (do_block)? @body) @definition.macro

(call target: [(identifier) (dot)] @reference.calls (#not-match? @reference.calls "^(def[a-z]*|alias|import|require|use|quote|unquote|case|cond|if|unless|with|for|try|receive|raise|moduledoc|doc|spec|type|typep|opaque|callback|impl|behaviour)$"))
(call target: (identifier) @_use (#eq? @_use "use") (arguments . (alias) @reference.uses))
(call target: (identifier) @_import (#match? @_import "^(alias|import|require|use)$") (arguments . (alias) @import))
`,
};
