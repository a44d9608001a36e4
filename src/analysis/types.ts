/**
 * The result of analysing one file. Line numbers are 1-based and inclusive,
 * and always come from the syntax tree (or the text splitter), never from a
 * model.
 */
import type { CallSite } from './ast/calls.js';
import type { CodeElement, ImportInfo } from './element-types.js';
import type { Language } from './language-registry.js';

export type {
  AccessModifier,
  CodeElement,
  CodeElementType,
  Dependency,
  DependencyType,
  ElementType,
  ImportInfo,
  Parameter,
  PropertyInfo,
  TextElementType,
} from './element-types.js';

/** A language as the index names it: one of the records in language-registry.ts. */
export type { Language };

/** Where the meaning of a file's elements came from. */
export type AnalysisSource = 'ast' | 'ast+llm' | 'text';

export interface CodeFile {
  path: string;
  language: Language;
  summary: string;
  imports: ImportInfo[];
  elements: CodeElement[];
  /** Where the syntax tree calls a name (code files): references mark these lines as calls. */
  calls?: CallSite[];
  source: AnalysisSource;
  /** Problems that did not stop the analysis (invalid UTF-8, syntax errors). */
  warnings: string[];
}

/** Why a file was not analysed at all. */
/** Why a file is not indexed; the last three come from the scan (files/scan.ts), before a file is read. */
export type SkipReason =
  | 'empty'
  | 'binary'
  | 'too-large'
  | 'minified'
  | 'generated'
  | 'unreadable'
  | 'symlink'
  | 'special-file'
  | 'bad-name';

export interface SkippedFile {
  path: string;
  skipped: SkipReason;
  detail: string;
}

export type AnalysisResult = CodeFile | SkippedFile;

export function isSkipped(result: AnalysisResult): result is SkippedFile {
  return 'skipped' in result;
}
