/**
 * Every language the index knows, in one table: how a file is recognised
 * (extension, file name, shebang interpreter), what people type for it
 * (aliases), and how it is analysed (a tree-sitter grammar and the
 * extractor over its tree, or a text splitter). Search filters, the CLIs and
 * the agent tool take their lists from here. Nothing here loads tree-sitter
 * (ast/parsers.ts loads a grammar when a file of its language is parsed),
 * so that searches, which parse nothing, do not load it either.
 */
import { basename, extname } from 'node:path';
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

export interface LanguageDefinition {
  analysis: LanguageAnalysis;
  /** Lower-case, with the dot. */
  extensions: readonly string[];
  /** Whole file names (`Rakefile`, `.bashrc`), for files whose extension says nothing. */
  fileNames?: readonly string[];
  /** Interpreters named on a `#!` line, without version suffixes (`python3.12` → python). */
  interpreters?: readonly string[];
  /** Other names people and models use, lower case. */
  aliases?: readonly string[];
}

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
 * A Record over Language, so that a language added to the type without its
 * definition here fails to compile: no language falls back on another's
 * grammar or extractor, and one read as text says so.
 */
export const LANGUAGE_DEFINITIONS: Readonly<Record<Language, LanguageDefinition>> = {
  typescript: {
    analysis: code({ package: 'tree-sitter-typescript', export: 'typescript' }, typescriptExtractor),
    extensions: ['.ts', '.mts', '.cts'],
    interpreters: ['ts-node', 'tsx'],
    aliases: ['ts'],
  },
  tsx: {
    analysis: code({ package: 'tree-sitter-typescript', export: 'tsx' }, typescriptExtractor),
    extensions: ['.tsx'],
  },
  javascript: {
    analysis: code({ package: 'tree-sitter-javascript' }, typescriptExtractor),
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    interpreters: ['node', 'nodejs', 'deno', 'bun'],
    aliases: ['js', 'jsx', 'node', 'nodejs', 'ecmascript'],
  },
  python: {
    analysis: code({ package: 'tree-sitter-python' }, pythonExtractor),
    extensions: ['.py', '.pyi', '.pyw'],
    fileNames: ['SConstruct', 'SConscript'],
    interpreters: ['python', 'pypy'],
    aliases: ['py', 'python3'],
  },
  go: { analysis: code({ package: 'tree-sitter-go' }, genericExtractor(go)), extensions: ['.go'], aliases: ['golang'] },
  rust: {
    analysis: code({ package: 'tree-sitter-rust' }, genericExtractor(rust)),
    extensions: ['.rs'],
    aliases: ['rs'],
  },
  java: { analysis: code({ package: 'tree-sitter-java' }, genericExtractor(java)), extensions: ['.java'] },
  c: { analysis: code({ package: 'tree-sitter-c' }, genericExtractor(c)), extensions: ['.c', '.h'], aliases: ['h'] },
  cpp: {
    analysis: code({ package: 'tree-sitter-cpp' }, genericExtractor(cpp)),
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp', '.inl'],
    aliases: ['c++', 'cxx', 'cc', 'hpp'],
  },
  csharp: {
    analysis: code({ package: 'tree-sitter-c-sharp', nativeOnly: true }, genericExtractor(csharp)),
    extensions: ['.cs', '.csx'],
    aliases: ['cs', 'c#', 'c-sharp', 'dotnet'],
  },
  ruby: {
    analysis: code({ package: 'tree-sitter-ruby' }, genericExtractor(ruby)),
    extensions: ['.rb', '.rake', '.gemspec', '.ru', '.rbi'],
    fileNames: ['Rakefile', 'Gemfile', 'Guardfile', 'Podfile', 'Vagrantfile', 'Brewfile', 'Capfile', 'Fastfile'],
    interpreters: ['ruby', 'jruby'],
    aliases: ['rb'],
  },
  php: {
    analysis: code({ package: 'tree-sitter-php', export: 'php' }, genericExtractor(php)),
    extensions: ['.php', '.phtml', '.php8', '.php7'],
    interpreters: ['php'],
  },
  kotlin: {
    analysis: code({ package: '@tree-sitter-grammars/tree-sitter-kotlin' }, genericExtractor(kotlin)),
    extensions: ['.kt', '.kts'],
    interpreters: ['kotlin'],
    aliases: ['kt', 'kts'],
  },
  // Optional (its dependency tree-sitter-cli downloads a binary from GitHub
  // at install): the linux-x64 binding is shipped in grammars/ as well.
  swift: {
    analysis: code({ package: 'tree-sitter-swift', shipped: 'tree-sitter-swift' }, genericExtractor(swift)),
    extensions: ['.swift'],
    interpreters: ['swift'],
  },
  scala: {
    analysis: code({ package: 'tree-sitter-scala' }, genericExtractor(scala)),
    extensions: ['.scala', '.sc', '.sbt'],
    interpreters: ['scala', 'amm'],
    aliases: ['sc', 'sbt'],
  },
  bash: {
    analysis: code({ package: 'tree-sitter-bash' }, genericExtractor(bash)),
    extensions: ['.sh', '.bash', '.zsh', '.ksh', '.bats', '.command'],
    fileNames: [
      '.bashrc',
      '.bash_profile',
      '.bash_logout',
      '.profile',
      '.zshrc',
      '.zprofile',
      '.zshenv',
      'PKGBUILD',
      'APKBUILD',
    ],
    interpreters: ['bash', 'sh', 'zsh', 'ksh', 'dash', 'ash', 'bats'],
    aliases: ['sh', 'shell', 'zsh', 'shellscript'],
  },
  lua: {
    analysis: code({ package: '@tree-sitter-grammars/tree-sitter-lua', nativeOnly: true }, genericExtractor(lua)),
    extensions: ['.lua'],
    fileNames: ['.luacheckrc'],
    interpreters: ['lua', 'luajit', 'nvim'],
    aliases: ['luajit'],
  },
  elixir: {
    analysis: code({ package: 'tree-sitter-elixir' }, genericExtractor(elixir)),
    extensions: ['.ex', '.exs'],
    interpreters: ['elixir'],
    aliases: ['ex', 'exs'],
  },
  haskell: {
    analysis: code({ package: 'tree-sitter-haskell' }, genericExtractor(haskell)),
    extensions: ['.hs', '.hs-boot', '.lhs'],
    interpreters: ['runhaskell', 'runghc', 'stack'],
    aliases: ['hs'],
  },
  zig: {
    analysis: code({ package: '@tree-sitter-grammars/tree-sitter-zig' }, genericExtractor(zig)),
    extensions: ['.zig', '.zon'],
  },
  markdown: { analysis: MARKDOWN_SECTIONS, extensions: ['.md', '.markdown', '.mdx'], aliases: ['md'] },
  json: { analysis: CONFIG_DOCUMENT, extensions: ['.json', '.jsonc'] },
  yaml: { analysis: CONFIG_DOCUMENT, extensions: ['.yaml', '.yml'], aliases: ['yml'] },
  toml: { analysis: CONFIG_DOCUMENT, extensions: ['.toml'], fileNames: ['Pipfile', 'Cargo.lock'] },
  text: { analysis: TEXT_WINDOWS, extensions: [], aliases: ['txt'] },
};

/** Every language the index records, as filters name them. */
export const LANGUAGES = Object.keys(LANGUAGE_DEFINITIONS) as readonly Language[];

/** What people (and models) type for a language. */
export const LANGUAGE_ALIASES: Readonly<Record<string, Language>> = Object.fromEntries(
  LANGUAGES.flatMap((language) =>
    (LANGUAGE_DEFINITIONS[language].aliases ?? []).map((alias) => [alias, language] as const),
  ),
);

/** A language as the index names it (aliases and case folded), or undefined when unknown. */
export function canonicalLanguage(name: string): Language | undefined {
  const lower = name.trim().toLowerCase();
  if (Object.hasOwn(LANGUAGE_DEFINITIONS, lower)) return lower as Language;
  return Object.hasOwn(LANGUAGE_ALIASES, lower) ? LANGUAGE_ALIASES[lower] : undefined;
}

function lookup(pick: (definition: LanguageDefinition) => readonly string[] | undefined): Map<string, Language> {
  const map = new Map<string, Language>();
  for (const language of LANGUAGES)
    for (const key of pick(LANGUAGE_DEFINITIONS[language]) ?? []) map.set(key, language);
  return map;
}

const byExtension = lookup((definition) => definition.extensions);
const byFileName = lookup((definition) => definition.fileNames);
const byInterpreter = lookup((definition) => definition.interpreters);

/**
 * The language of a file, by its extension, then its whole name, then the
 * interpreter on its `#!` line. `head` is the start of the file (at least
 * its first line); C headers that hold C++ are told apart by it.
 */
export function detectLanguage(path: string, head = ''): Language {
  const name = basename(path);
  const extension = extname(name).toLowerCase();
  const fromExtension = byExtension.get(extension);
  if (fromExtension === 'c' && extension === '.h' && looksLikeCpp(head)) return 'cpp';
  if (fromExtension) return fromExtension;
  const fromName = byFileName.get(name);
  if (fromName) return fromName;
  const interpreter = shebangInterpreter(head);
  return (interpreter && byInterpreter.get(interpreter)) || 'text';
}

/**
 * `#!/usr/bin/env -S python3.12 -u` → python: the program's base name, past
 * `env`, its options and variable assignments, without a version suffix.
 */
export function shebangInterpreter(head: string): string | undefined {
  if (!head.startsWith('#!')) return undefined;
  const end = head.indexOf('\n');
  const words = head
    .slice(2, end < 0 ? undefined : end)
    .trim()
    .split(/\s+/);
  let program = basename(words.shift() ?? '');
  if (program === 'env') {
    while (words.length > 0 && (words[0]!.startsWith('-') || words[0]!.includes('='))) words.shift();
    program = basename(words[0] ?? '');
  }
  return program.replace(/[\d.-]+$/, '') || undefined;
}

/** C++ constructs that C never has, in a header's opening text. */
function looksLikeCpp(head: string): boolean {
  return /^\s*(namespace\s+[\w:]*\s*\{|template\s*<|class\s+\w+[^;]*\{|#include\s*<(iostream|string|vector|memory|map|utility|type_traits)>|(public|private|protected)\s*:)/m.test(
    head,
  );
}

export function analysisOf(language: Language): LanguageAnalysis {
  return LANGUAGE_DEFINITIONS[language].analysis;
}

export function isCodeLanguage(language: Language): boolean {
  return LANGUAGE_DEFINITIONS[language].analysis.kind === 'code';
}
