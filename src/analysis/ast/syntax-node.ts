/**
 * The tree-sitter types that extractors read, apart from parsers.ts: parsers.ts
 * loads languages.ts, which loads every extractor, so an extractor that took its
 * types from there would sit in one import cycle with all the others. This
 * module imports nothing of the project's, and no tree-sitter at run time.
 */
import type Parser from 'tree-sitter';

export type SyntaxNode = Parser.SyntaxNode;
export type Tree = Parser.Tree;
export type GrammarLanguage = Parser.Language;
export type Query = Parser.Query;
