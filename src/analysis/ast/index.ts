/** The syntax-tree half of analysis: elements, imports and a summary from tree-sitter alone. */
import { callSites, type CallSite } from './calls.js';
import { newExtraction } from './extraction.js';
import { compileQuery, grammarOf, parse } from './parsers.js';
import { GrammarUnavailable } from '../errors.js';
import { analysisOf } from '../languages.js';
import type { CodeElement, ImportInfo, Language } from '../types.js';

export interface AstAnalysis {
  elements: CodeElement[];
  imports: ImportInfo[];
  summary: string;
  /** Regions tree-sitter could not parse; the elements outside them are kept. */
  syntaxErrors: number;
  /** Where the tree calls a name. */
  calls: CallSite[];
}

export { GrammarUnavailable };

/**
 * Parses `text` and extracts its elements with the extractor of
 * `language`'s record (TypeScript, JavaScript and Python have their own,
 * which read more: accessors, decorators, docstrings; every other language
 * is the generic extractor over the table in its record). Throws
 * GrammarUnavailable when the grammar cannot be loaded or the language has
 * none (it is read as text), and an Error when a language's query does not
 * fit its grammar.
 */
export function analyzeSyntax(language: Language, text: string): AstAnalysis {
  const analysis = analysisOf(language);
  if (analysis.kind !== 'code') throw new GrammarUnavailable(language, `no tree-sitter grammar for ${language}`);
  const { extractor } = analysis;
  const source = extractor.textToParse ? extractor.textToParse(text) : text;
  const root = parse(language, source).rootNode;
  const out = newExtraction();
  extractor.extract({ root, source, grammar: grammarOf(language), compileQuery }, out);
  return {
    elements: out.elements,
    imports: out.imports,
    summary: extractor.summary(root),
    // hasError also covers MISSING nodes inserted by error recovery, which are
    // not ERROR nodes: count at least one region then.
    syntaxErrors: root.hasError ? Math.max(1, root.descendantsOfType('ERROR').length) : 0,
    calls: callSites(root, source, analysis.callTypes),
  };
}
