/**
 * What a language's extractor is: given a file's syntax tree, it fills an
 * Extraction with elements and imports, and says what the file is about.
 * TypeScript and Python have their own (typescript.ts, python.ts); every
 * other language is the generic extractor (generic/) over the table in its
 * record (../languages/<name>.ts).
 */
import type { Extraction } from './extraction.js';
import type { GrammarLanguage, Query, SyntaxNode } from './syntax-node.js';

/** A file as tree-sitter read it. */
export interface ParsedSource {
  root: SyntaxNode;
  /** The text that was parsed: the file's, after the extractor's `textToParse`. */
  source: string;
  grammar: GrammarLanguage;
  /**
   * Compiles a query against the grammar. Passed in, so that an extractor
   * module loads no tree-sitter of its own: the records of TypeScript and
   * Python point at their extractors, and searches, which parse nothing,
   * read every record.
   */
  compileQuery: (grammar: GrammarLanguage, query: string) => Query;
}

export interface SyntaxExtractor {
  /** The text as the grammar should read it, the same length so that positions hold; the file's own text when absent. */
  textToParse?(text: string): string;
  /** Fills `out` with the file's elements and imports. */
  extract(parsed: ParsedSource, out: Extraction): void;
  /** What the file is about, from its opening comment or docstring; '' when it says nothing. */
  summary(root: SyntaxNode): string;
}
