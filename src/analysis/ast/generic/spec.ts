/**
 * What the generic extractor needs to know about one language: a tree-sitter
 * query that finds its definitions, references and imports, and a few facts
 * the query cannot say (access rules, constructor names, how an impl block
 * is named). Each language record (src/analysis/languages/) holds its table.
 *
 * Capture names in `query`:
 *  - `@definition.<kind>`: the node an element spans, `<kind>` a
 *    CodeElementType (`definition.function`, `definition.struct`, …);
 *  - `@name`: its name (`Foo::bar`, `M.bar` and `M:bar` put the qualifier in
 *    the parent); `@receiver`: the type a Go-style method belongs to;
 *    `@trait`: what an impl block implements (its `@name` is the type);
 *  - `@body`, `@parameters`, `@return`: where the grammar keeps them, when
 *    its fields are not named `body`, `parameters`, `return_type`;
 *  - `@reference.calls`, `@reference.inherits`, `@reference.implements`,
 *    `@reference.uses`: relations, credited to the innermost element that
 *    holds them;
 *  - `@import`: a module the file imports (quotes and brackets dropped);
 *  - `@keyword`: the word that makes a call a definition (Elixir's `def`,
 *    `defmodule`), looked up in `keywords` for the element's kind;
 *  - `@statement`: the node that must stand directly in one of
 *    `statementParents` for the match to count: its definition, relations
 *    and import (checked once a `@keyword` is accepted; a match whose
 *    keyword makes no definition keeps its relations and import, as without
 *    `@statement`).
 *
 * Predicates (`#match?`, `#eq?`) run in JavaScript for every candidate
 * match: a pattern that names a keyword is checked through `keywords`.
 * Where definitions can stand (the file's top level, a block) is said by
 * `@statement` rather than by a parent in each pattern: tree-sitter
 * analyses a pattern against every parse state its parent can be in, and
 * Elixir's query, with each pattern under `source` and again under
 * `do_block`, took almost three times as long to compile in each analysis
 * thread (matching cost the same; docs/performance.md, "The figures behind
 * the constants").
 */
import type { AccessModifier, CodeElementType } from '../../element-types.js';

/** How a language writes comments: line markers, and block delimiters. Default: `//` and `/* … *\/`. */
export interface CommentSyntax {
  line: readonly string[];
  block?: readonly (readonly [open: string, close: string])[];
}

/** The order of a parameter's name and type: `x: Int`, `String x` (C, Java, C#, PHP), `x int` (Go). */
export type ParameterSyntax = 'name: type' | 'type name' | 'name type';

export interface GenericLanguage {
  query: string;
  /** Access of what declares none: `public` for most, `internal` for Java's package-private. */
  defaultAccess: AccessModifier;
  /** Access of a type's members that declare none, when it differs (C#: private). */
  memberAccess?: AccessModifier;
  /**
   * For patterns that capture a `@keyword`: by the pattern's kind, the
   * element kind of each keyword it accepts (`function: { def: 'function',
   * defmacro: 'macro' }`); other words make no definition.
   */
  keywords?: Readonly<Record<string, Readonly<Record<string, CodeElementType>>>>;
  /** With `@statement` in the query: the node types a statement stands directly in (Elixir: `source`, `do_block`). */
  statementParents?: readonly string[];
  /** Calls that are language constructs rather than relations (Elixir's `if`, `case`, `quote`). */
  ignoredCalls?: RegExp;
  /** Words in a declaration's head (before its name) that set its access: `pub`, `private`, `defp`, `local`. */
  accessKeywords?: Readonly<Record<string, AccessModifier>>;
  /** Go: a capitalised name is exported (public), any other is package-private (internal). */
  accessByCase?: boolean;
  /** Method names that construct their object (`initialize`, `__construct`, `init`). */
  constructorNames?: readonly string[];
  /** A method named as its class is its constructor (C++, Java, C#). */
  constructorIsTypeName?: boolean;
  /** How an impl block is named from the type and what it implements. Default: `impl Trait for Type`, `impl Type`. */
  implName?: (type: string, trait: string) => string;
  /**
   * Lines the grammar cannot parse and that carry no meaning for it, blanked
   * (same length, so positions hold) before parsing: C and C++ macros alone
   * on a line (`ABSL_NAMESPACE_BEGIN`, `G_BEGIN_DECLS`) make tree-sitter read
   * the class that follows as a function.
   */
  blankLines?: RegExp;
  /**
   * Consecutive definitions of one name are one element (Haskell's type
   * signature and equations, Elixir's function clauses): it spans them all
   * and keeps the first one's signature and doc.
   */
  mergeClauses?: boolean;
  /** How a parameter reads. Default: `name: type` (an untyped `x` is a name). */
  parameterSyntax?: ParameterSyntax;
  /** Node types that are parameters, when `@parameters` captures the declaration itself (Swift). */
  parameterTypes?: readonly string[];
  /** How comments are written, for doc comments read from the source. Default: `//` and `/* … *\/`. */
  comments?: CommentSyntax;
  /** Lines that may sit between a doc comment and its definition (Rust's `#[derive]`). */
  attributeLine?: RegExp;
  /** Node types of comments (for the file's summary), when not all types whose name holds `comment`. */
  commentTypes?: readonly string[];
  /**
   * An attribute above a definition that holds its doc (Elixir's `@doc`), by
   * its text: docs are then read from the tree, not the source's comments.
   */
  docAttribute?: RegExp;
  /** With docAttribute: the form that documents its container wherever it stands in the body (Elixir's `@moduledoc`). */
  containerDocAttribute?: RegExp;
  /** With docAttribute: node types that may sit between the doc and its definition (Elixir's `@spec`). */
  betweenDocAndDefinition?: readonly string[];
  /**
   * Declarations that wrap one definition (Go's `type X struct` is a
   * type_declaration around a type_spec): the element spans the wrapper
   * when it holds this definition alone.
   */
  wrappers?: readonly string[];
}
