/**
 * The result of analysing one file. Line numbers are 1-based and inclusive,
 * and always come from the syntax tree (or the text splitter), never from a
 * model.
 */
import type { CallSite } from './ast/calls.js';

/**
 * Code elements, as named in resources/ocvector/result-schema.json: the
 * original design's kinds, and what other languages add (trait, impl,
 * module, macro, type-alias).
 */
export type CodeElementType =
  | 'class'
  | 'struct'
  | 'interface'
  | 'trait'
  | 'enum'
  | 'type-alias'
  | 'namespace'
  | 'module'
  | 'impl'
  | 'function'
  | 'method'
  | 'constructor'
  | 'macro'
  | 'delegate'
  | 'signal'
  | 'property'
  | 'field'
  | 'constant';

/**
 * Pieces of files that are not elements: Markdown sections, config files,
 * text windows, and chunks of code outside any element (see vector/coverage.ts).
 */
export type TextElementType = 'section' | 'document' | 'window' | 'chunk';

export type ElementType = CodeElementType | TextElementType;

export type AccessModifier = 'public' | 'private' | 'protected' | 'internal';

export type DependencyType = 'inherits' | 'implements' | 'uses' | 'calls' | 'references' | 'imports';

export interface Parameter {
  name: string;
  type: string;
}

export interface PropertyInfo {
  name: string;
  type: string;
  accessors: ('get' | 'set')[];
}

export interface Dependency {
  type: DependencyType;
  target: string;
}

export interface CodeElement {
  type: ElementType;
  name: string;
  /** Dotted path of enclosing elements (`Outer.Inner`), empty at top level. */
  parent: string;
  access: AccessModifier;
  startLine: number;
  endLine: number;
  signature: string;
  description: string;
  parameters: Parameter[];
  returnType: string;
  properties: PropertyInfo[];
  dependencies: Dependency[];
}

export interface ImportInfo {
  module: string;
  line: number;
}

/** Every language has an entry in LANGUAGE_NAMES (language-names.ts: how its files are recognised) and in languages.ts (how they are analysed). */
export type Language =
  | 'typescript'
  | 'tsx'
  | 'javascript'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp'
  | 'csharp'
  | 'ruby'
  | 'php'
  | 'kotlin'
  | 'swift'
  | 'scala'
  | 'bash'
  | 'lua'
  | 'elixir'
  | 'haskell'
  | 'zig'
  | 'markdown'
  | 'json'
  | 'yaml'
  | 'toml'
  | 'text';

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
