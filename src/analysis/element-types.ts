/**
 * What an element of a file is: the types every extractor and splitter fills
 * in. Apart from types.ts, which names the languages (from the registry), so
 * that the language records and the extractors they point at depend on no
 * list of languages.
 */
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
