/** The syntax-tree half of analysis: elements, imports and a summary from tree-sitter alone. */
import { callSites, type CallSite } from './calls.js';
import { cleanBlock, docstringOf } from './comments.js';
import { newExtraction } from './extraction.js';
import { extractGeneric } from './generic/extract.js';
import { fileSummary } from './generic/docs.js';
import { GENERIC_LANGUAGES } from './languages/index.js';
import { grammarOf, parse, type SyntaxNode } from './parsers.js';
import { extractPython } from './python.js';
import { extractTypeScript } from './typescript.js';
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

export { GrammarUnavailable } from '../errors.js';

/**
 * Parses `text` and extracts its elements. TypeScript, JavaScript and Python
 * have extractors of their own (they read more: accessors, decorators,
 * docstrings); every other language goes through the generic extractor and
 * its table in languages/. Throws GrammarUnavailable when the grammar cannot
 * be loaded, and an Error when a language's query does not fit its grammar.
 */
export function analyzeSyntax(language: Language, text: string): AstAnalysis {
  const generic = GENERIC_LANGUAGES[language];
  const source = generic?.blankLines ? text.replace(generic.blankLines, (line) => ' '.repeat(line.length)) : text;
  const tree = parse(language, source);
  const root = tree.rootNode;
  const out = newExtraction();
  let summary: string;
  if (generic) {
    extractGeneric(root, source, grammarOf(language), generic, out);
    summary = fileSummary(root, generic);
  } else if (language === 'python') {
    extractPython(root, out);
    summary = docstringOf(root);
  } else {
    extractTypeScript(root, out);
    summary = leadingComment(root);
  }
  return {
    elements: out.elements,
    imports: out.imports,
    summary,
    // hasError also covers MISSING nodes inserted by error recovery, which are
    // not ERROR nodes: count at least one region then.
    syntaxErrors: root.hasError ? Math.max(1, root.descendantsOfType('ERROR').length) : 0,
    calls: callSites(root, source),
  };
}

/** A file's opening doc comment, when it is not the doc of the first declaration. */
function leadingComment(root: SyntaxNode): string {
  const first = root.firstNamedChild;
  if (first?.type !== 'comment' || !first.text.startsWith('/*')) return '';
  const next = first.nextNamedSibling;
  if (
    next &&
    next.type !== 'comment' &&
    next.type !== 'import_statement' &&
    next.startPosition.row <= first.endPosition.row + 1
  )
    return '';
  return cleanBlock(first.text.replace(/^\/\*(?!\*)/, '/**'));
}
