/**
 * Every language the index knows, in one table: how it is analysed (a
 * tree-sitter grammar and the extractor over its tree, or a text splitter),
 * beside its names and how its files are recognised (language-names.ts,
 * apart so that a search, which parses nothing, loads no extractor). Search
 * filters, the CLIs and the agent tool take their lists from there. Nothing
 * here loads tree-sitter (ast/parsers.ts loads a grammar when a file of its
 * language is parsed).
 */
import type { SyntaxExtractor } from './ast/extractor.js';
import { genericExtractor } from './ast/generic/extract.js';
import { bash } from './ast/languages/bash.js';
import { c } from './ast/languages/c.js';
import { cpp } from './ast/languages/cpp.js';
import { csharp } from './ast/languages/csharp.js';
import { elixir } from './ast/languages/elixir.js';
import { go } from './ast/languages/go.js';
import { haskell } from './ast/languages/haskell.js';
import { java } from './ast/languages/java.js';
import { kotlin } from './ast/languages/kotlin.js';
import { lua } from './ast/languages/lua.js';
import { php } from './ast/languages/php.js';
import { ruby } from './ast/languages/ruby.js';
import { rust } from './ast/languages/rust.js';
import { scala } from './ast/languages/scala.js';
import { swift } from './ast/languages/swift.js';
import { zig } from './ast/languages/zig.js';
import { pythonExtractor } from './ast/python.js';
import { typescriptExtractor } from './ast/typescript.js';
import { configDocument, markdownSections, textWindows } from './text.js';
import type { CodeElement, Language } from './types.js';

/** How a language's files are analysed: syntax tree, Markdown sections, one config document, or text windows. */
export type AnalysisKind = LanguageAnalysis['kind'];

/** Where a grammar comes from: an npm package, and the export holding the grammar when the package has several. */
export interface GrammarSource {
  package: string;
  export?: string;
  /**
   * The package's entry is an ES module with top-level await, which
   * require() refuses: its native binding is loaded directly (node-gyp-build
   * is how the package itself finds it).
   */
  nativeOnly?: boolean;
  /**
   * A copy of the package's native binding that ocvector ships, a directory
   * of the package's grammars/ (made by scripts/prebuild.mjs at `npm pack`;
   * an absolute path is taken as it is), loaded when the package cannot be:
   * an optional dependency that npm left out. The package is preferred when
   * both are there.
   */
  shipped?: string;
}

/** A language read through its syntax tree: the grammar, and the extractor over the tree. */
export interface CodeAnalysis {
  kind: 'code';
  grammar: GrammarSource;
  extractor: SyntaxExtractor;
}

/** A language read as text, with no grammar: its elements are what the splitter cuts. */
export interface TextAnalysis {
  kind: 'markdown' | 'config' | 'text';
  split(path: string, text: string, language: Language): CodeElement[];
}

export type LanguageAnalysis = CodeAnalysis | TextAnalysis;

/** A language read through its syntax tree. */
function code(grammar: GrammarSource, extractor: SyntaxExtractor): CodeAnalysis {
  return { kind: 'code', grammar, extractor };
}

/** Sections under each heading. */
const MARKDOWN_SECTIONS: TextAnalysis = { kind: 'markdown', split: (path, text) => markdownSections(path, text) };
/** The whole file as one document. */
const CONFIG_DOCUMENT: TextAnalysis = {
  kind: 'config',
  split: (path, text, language) => [configDocument(path, language, text)],
};
/** Overlapping windows of lines. */
const TEXT_WINDOWS: TextAnalysis = { kind: 'text', split: (path, text) => textWindows(path, text) };

/**
 * How each language is analysed: a Record over Language, so that a language
 * added to the type without its analysis here fails to compile; no language
 * falls back on another's grammar or extractor, and one read as text says so.
 */
const LANGUAGE_ANALYSIS: Readonly<Record<Language, LanguageAnalysis>> = {
  typescript: code({ package: 'tree-sitter-typescript', export: 'typescript' }, typescriptExtractor),
  tsx: code({ package: 'tree-sitter-typescript', export: 'tsx' }, typescriptExtractor),
  javascript: code({ package: 'tree-sitter-javascript' }, typescriptExtractor),
  python: code({ package: 'tree-sitter-python' }, pythonExtractor),
  go: code({ package: 'tree-sitter-go' }, genericExtractor(go)),
  rust: code({ package: 'tree-sitter-rust' }, genericExtractor(rust)),
  java: code({ package: 'tree-sitter-java' }, genericExtractor(java)),
  c: code({ package: 'tree-sitter-c' }, genericExtractor(c)),
  cpp: code({ package: 'tree-sitter-cpp' }, genericExtractor(cpp)),
  csharp: code({ package: 'tree-sitter-c-sharp', nativeOnly: true }, genericExtractor(csharp)),
  ruby: code({ package: 'tree-sitter-ruby' }, genericExtractor(ruby)),
  php: code({ package: 'tree-sitter-php', export: 'php' }, genericExtractor(php)),
  kotlin: code({ package: '@tree-sitter-grammars/tree-sitter-kotlin' }, genericExtractor(kotlin)),
  // Optional (its dependency tree-sitter-cli downloads a binary from GitHub
  // at install): the linux-x64 binding is shipped in grammars/ as well.
  swift: code({ package: 'tree-sitter-swift', shipped: 'tree-sitter-swift' }, genericExtractor(swift)),
  scala: code({ package: 'tree-sitter-scala' }, genericExtractor(scala)),
  bash: code({ package: 'tree-sitter-bash' }, genericExtractor(bash)),
  lua: code({ package: '@tree-sitter-grammars/tree-sitter-lua', nativeOnly: true }, genericExtractor(lua)),
  elixir: code({ package: 'tree-sitter-elixir' }, genericExtractor(elixir)),
  haskell: code({ package: 'tree-sitter-haskell' }, genericExtractor(haskell)),
  zig: code({ package: '@tree-sitter-grammars/tree-sitter-zig' }, genericExtractor(zig)),
  markdown: MARKDOWN_SECTIONS,
  json: CONFIG_DOCUMENT,
  yaml: CONFIG_DOCUMENT,
  toml: CONFIG_DOCUMENT,
  text: TEXT_WINDOWS,
};

export {
  canonicalLanguage,
  detectLanguage,
  LANGUAGE_ALIASES,
  LANGUAGE_NAMES,
  LANGUAGES,
  type LanguageNames,
  shebangInterpreter,
} from './language-names.js';

export function analysisOf(language: Language): LanguageAnalysis {
  return LANGUAGE_ANALYSIS[language];
}

export function isCodeLanguage(language: Language): boolean {
  return LANGUAGE_ANALYSIS[language].kind === 'code';
}
