/**
 * Every language the index knows, in one table: how a file is recognised
 * (extension, file name, shebang interpreter), what people type for it
 * (aliases), and how it is analysed. Search filters, the CLIs and the agent
 * tool take their lists from here.
 */
import { basename, extname } from 'node:path';
import type { Language } from './types.js';

/** How a language's files are analysed: syntax tree, Markdown sections, one config document, or text windows. */
export type AnalysisKind = 'code' | 'markdown' | 'config' | 'text';

export interface LanguageSpec {
  kind: AnalysisKind;
  /** Lower-case, with the dot. */
  extensions: readonly string[];
  /** Whole file names (`Rakefile`, `.bashrc`), for files whose extension says nothing. */
  fileNames?: readonly string[];
  /** Interpreters named on a `#!` line, without version suffixes (`python3.12` → python). */
  interpreters?: readonly string[];
  /** Other names people and models use, lower case. */
  aliases?: readonly string[];
}

/** A Record over Language, so that a language added to the type without an entry here fails to compile. */
export const LANGUAGE_SPECS: Readonly<Record<Language, LanguageSpec>> = {
  typescript: { kind: 'code', extensions: ['.ts', '.mts', '.cts'], interpreters: ['ts-node', 'tsx'], aliases: ['ts'] },
  tsx: { kind: 'code', extensions: ['.tsx'] },
  javascript: {
    kind: 'code',
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    interpreters: ['node', 'nodejs', 'deno', 'bun'],
    aliases: ['js', 'jsx', 'node', 'nodejs', 'ecmascript'],
  },
  python: {
    kind: 'code',
    extensions: ['.py', '.pyi', '.pyw'],
    fileNames: ['SConstruct', 'SConscript'],
    interpreters: ['python', 'pypy'],
    aliases: ['py', 'python3'],
  },
  go: { kind: 'code', extensions: ['.go'], aliases: ['golang'] },
  rust: { kind: 'code', extensions: ['.rs'], aliases: ['rs'] },
  java: { kind: 'code', extensions: ['.java'] },
  c: { kind: 'code', extensions: ['.c', '.h'], aliases: ['h'] },
  cpp: {
    kind: 'code',
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp', '.inl'],
    aliases: ['c++', 'cxx', 'cc', 'hpp'],
  },
  csharp: { kind: 'code', extensions: ['.cs', '.csx'], aliases: ['cs', 'c#', 'c-sharp', 'dotnet'] },
  ruby: {
    kind: 'code',
    extensions: ['.rb', '.rake', '.gemspec', '.ru', '.rbi'],
    fileNames: ['Rakefile', 'Gemfile', 'Guardfile', 'Podfile', 'Vagrantfile', 'Brewfile', 'Capfile', 'Fastfile'],
    interpreters: ['ruby', 'jruby'],
    aliases: ['rb'],
  },
  php: { kind: 'code', extensions: ['.php', '.phtml', '.php8', '.php7'], interpreters: ['php'] },
  kotlin: { kind: 'code', extensions: ['.kt', '.kts'], interpreters: ['kotlin'], aliases: ['kt', 'kts'] },
  swift: { kind: 'code', extensions: ['.swift'], interpreters: ['swift'] },
  scala: {
    kind: 'code',
    extensions: ['.scala', '.sc', '.sbt'],
    interpreters: ['scala', 'amm'],
    aliases: ['sc', 'sbt'],
  },
  bash: {
    kind: 'code',
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
    kind: 'code',
    extensions: ['.lua'],
    fileNames: ['.luacheckrc'],
    interpreters: ['lua', 'luajit', 'nvim'],
    aliases: ['luajit'],
  },
  elixir: { kind: 'code', extensions: ['.ex', '.exs'], interpreters: ['elixir'], aliases: ['ex', 'exs'] },
  haskell: {
    kind: 'code',
    extensions: ['.hs', '.hs-boot', '.lhs'],
    interpreters: ['runhaskell', 'runghc', 'stack'],
    aliases: ['hs'],
  },
  zig: { kind: 'code', extensions: ['.zig', '.zon'] },
  markdown: { kind: 'markdown', extensions: ['.md', '.markdown', '.mdx'], aliases: ['md'] },
  json: { kind: 'config', extensions: ['.json', '.jsonc'] },
  yaml: { kind: 'config', extensions: ['.yaml', '.yml'], aliases: ['yml'] },
  toml: { kind: 'config', extensions: ['.toml'], fileNames: ['Pipfile', 'Cargo.lock'] },
  text: { kind: 'text', extensions: [], aliases: ['txt'] },
};

/** Every language the index records, as filters name them. */
export const LANGUAGES = Object.keys(LANGUAGE_SPECS) as readonly Language[];

/** What people (and models) type for a language. */
export const LANGUAGE_ALIASES: Readonly<Record<string, Language>> = Object.fromEntries(
  LANGUAGES.flatMap((language) => (LANGUAGE_SPECS[language].aliases ?? []).map((alias) => [alias, language] as const)),
);

/** A language as the index names it (aliases and case folded), or undefined when unknown. */
export function canonicalLanguage(name: string): Language | undefined {
  const lower = name.trim().toLowerCase();
  if (Object.hasOwn(LANGUAGE_SPECS, lower)) return lower as Language;
  return Object.hasOwn(LANGUAGE_ALIASES, lower) ? LANGUAGE_ALIASES[lower] : undefined;
}

function lookup(pick: (spec: LanguageSpec) => readonly string[] | undefined): Map<string, Language> {
  const map = new Map<string, Language>();
  for (const language of LANGUAGES) for (const key of pick(LANGUAGE_SPECS[language]) ?? []) map.set(key, language);
  return map;
}

const byExtension = lookup((spec) => spec.extensions);
const byFileName = lookup((spec) => spec.fileNames);
const byInterpreter = lookup((spec) => spec.interpreters);

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

export function analysisKind(language: Language): AnalysisKind {
  return LANGUAGE_SPECS[language].kind;
}

export function isCodeLanguage(language: Language): boolean {
  return LANGUAGE_SPECS[language].kind === 'code';
}
