/**
 * How each language's files are analysed, from its record
 * (language-registry.ts): a tree-sitter grammar and the extractor over its
 * tree, or a text splitter. The generic extractor over a record's table is
 * made here, when analysis is loaded, rather than in the record, so that a
 * search, which reads the records (language-names.ts) but parses nothing,
 * loads no extractor. Nothing here loads tree-sitter (ast/parsers.ts loads a
 * grammar when a file of its language is parsed).
 */
import type { SyntaxExtractor } from './ast/extractor.js';
import { OWN_EXTRACTORS } from './own-extractors.js';
import { genericExtractor } from './ast/generic/extract.js';
import type { CodeRecord, GrammarSource, TextRecord } from './language-record.js';
import { type Language, LANGUAGE_RECORDS } from './language-registry.js';
import { configDocument, markdownSections, textWindows } from './text.js';
import type { CodeElement } from './types.js';

export type { GrammarSource };

/** How a language's files are analysed: syntax tree, Markdown sections, one config document, or text windows. */
export type AnalysisKind = LanguageAnalysis['kind'];

/** A language read through its syntax tree: the grammar, the extractor over the tree, and its call nodes. */
export interface CodeAnalysis {
  kind: 'code';
  grammar: GrammarSource;
  extractor: SyntaxExtractor;
  /** The grammar's node types that are calls (see CodeRecord). */
  callTypes: readonly string[];
}

/** A language read as text, with no grammar: its elements are what the splitter cuts. */
export interface TextAnalysis {
  kind: TextRecord['kind'];
  split(path: string, text: string, language: Language): CodeElement[];
}

export type LanguageAnalysis = CodeAnalysis | TextAnalysis;

function codeAnalysis(record: CodeRecord): CodeAnalysis {
  const extractor = 'table' in record ? genericExtractor(record.table) : OWN_EXTRACTORS[record.extractor];
  return { kind: 'code', grammar: record.grammar, extractor, callTypes: record.callTypes };
}

function textAnalysis(record: TextRecord): TextAnalysis {
  switch (record.kind) {
    case 'markdown':
      return { kind: 'markdown', split: (path, text) => markdownSections(path, text) };
    case 'config':
      return { kind: 'config', split: (path, text, language) => [configDocument(path, language, text, record.keys)] };
    case 'text':
      return { kind: 'text', split: (path, text) => textWindows(path, text) };
  }
}

/** Each language's analysis, made once: a generic extractor per table, so each language has its own. */
const LANGUAGE_ANALYSIS = new Map<Language, LanguageAnalysis>(
  LANGUAGE_RECORDS.map(({ name, analysis }) => [
    name,
    analysis.kind === 'code' ? codeAnalysis(analysis) : textAnalysis(analysis),
  ]),
);

export {
  canonicalLanguage,
  detectLanguage,
  isCodeLanguage,
  LANGUAGE_ALIASES,
  LANGUAGE_NAMES,
  LANGUAGES,
  type LanguageNames,
  shebangInterpreter,
} from './language-names.js';

export function analysisOf(language: Language): LanguageAnalysis {
  return LANGUAGE_ANALYSIS.get(language)!;
}
