/**
 * How the index names each language and recognises its files: extensions,
 * whole file names, `#!` interpreters, and what people (and models) type
 * for it. Apart from how a language is analysed (languages.ts), so that a
 * search, which filters by language but parses nothing, loads no extractor.
 */
import { basename, extname } from 'node:path';
import type { Language } from './types.js';

export interface LanguageNames {
  /** Lower-case, with the dot. */
  extensions: readonly string[];
  /** Whole file names (`Rakefile`, `.bashrc`), for files whose extension says nothing. */
  fileNames?: readonly string[];
  /** Interpreters named on a `#!` line, without version suffixes (`python3.12` → python). */
  interpreters?: readonly string[];
  /** Other names people and models use, lower case. */
  aliases?: readonly string[];
}

/**
 * A Record over Language, so that a language added to the type without its
 * names here fails to compile (and languages.ts holds its analysis likewise).
 */
export const LANGUAGE_NAMES: Readonly<Record<Language, LanguageNames>> = {
  typescript: { extensions: ['.ts', '.mts', '.cts'], interpreters: ['ts-node', 'tsx'], aliases: ['ts'] },
  tsx: { extensions: ['.tsx'] },
  javascript: {
    extensions: ['.js', '.mjs', '.cjs', '.jsx'],
    interpreters: ['node', 'nodejs', 'deno', 'bun'],
    aliases: ['js', 'jsx', 'node', 'nodejs', 'ecmascript'],
  },
  python: {
    extensions: ['.py', '.pyi', '.pyw'],
    fileNames: ['SConstruct', 'SConscript'],
    interpreters: ['python', 'pypy'],
    aliases: ['py', 'python3'],
  },
  go: { extensions: ['.go'], aliases: ['golang'] },
  rust: { extensions: ['.rs'], aliases: ['rs'] },
  java: { extensions: ['.java'] },
  c: { extensions: ['.c', '.h'], aliases: ['h'] },
  cpp: {
    extensions: ['.cc', '.cpp', '.cxx', '.c++', '.hh', '.hpp', '.hxx', '.h++', '.ipp', '.tpp', '.inl'],
    aliases: ['c++', 'cxx', 'cc', 'hpp'],
  },
  csharp: { extensions: ['.cs', '.csx'], aliases: ['cs', 'c#', 'c-sharp', 'dotnet'] },
  ruby: {
    extensions: ['.rb', '.rake', '.gemspec', '.ru', '.rbi'],
    fileNames: ['Rakefile', 'Gemfile', 'Guardfile', 'Podfile', 'Vagrantfile', 'Brewfile', 'Capfile', 'Fastfile'],
    interpreters: ['ruby', 'jruby'],
    aliases: ['rb'],
  },
  php: { extensions: ['.php', '.phtml', '.php8', '.php7'], interpreters: ['php'] },
  kotlin: { extensions: ['.kt', '.kts'], interpreters: ['kotlin'], aliases: ['kt', 'kts'] },
  swift: { extensions: ['.swift'], interpreters: ['swift'] },
  scala: { extensions: ['.scala', '.sc', '.sbt'], interpreters: ['scala', 'amm'], aliases: ['sc', 'sbt'] },
  bash: {
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
    extensions: ['.lua'],
    fileNames: ['.luacheckrc'],
    interpreters: ['lua', 'luajit', 'nvim'],
    aliases: ['luajit'],
  },
  elixir: { extensions: ['.ex', '.exs'], interpreters: ['elixir'], aliases: ['ex', 'exs'] },
  haskell: {
    extensions: ['.hs', '.hs-boot', '.lhs'],
    interpreters: ['runhaskell', 'runghc', 'stack'],
    aliases: ['hs'],
  },
  zig: { extensions: ['.zig', '.zon'] },
  markdown: { extensions: ['.md', '.markdown', '.mdx'], aliases: ['md'] },
  json: { extensions: ['.json', '.jsonc'] },
  yaml: { extensions: ['.yaml', '.yml'], aliases: ['yml'] },
  toml: { extensions: ['.toml'], fileNames: ['Pipfile', 'Cargo.lock'] },
  text: { extensions: [], aliases: ['txt'] },
};

/** Every language the index records, as filters name them. */
export const LANGUAGES = Object.keys(LANGUAGE_NAMES) as readonly Language[];

/** What people (and models) type for a language. */
export const LANGUAGE_ALIASES: Readonly<Record<string, Language>> = Object.fromEntries(
  LANGUAGES.flatMap((language) => (LANGUAGE_NAMES[language].aliases ?? []).map((alias) => [alias, language] as const)),
);

/** A language as the index names it (aliases and case folded), or undefined when unknown. */
export function canonicalLanguage(name: string): Language | undefined {
  const lower = name.trim().toLowerCase();
  if (Object.hasOwn(LANGUAGE_NAMES, lower)) return lower as Language;
  return Object.hasOwn(LANGUAGE_ALIASES, lower) ? LANGUAGE_ALIASES[lower] : undefined;
}

function lookup(pick: (names: LanguageNames) => readonly string[] | undefined): Map<string, Language> {
  const map = new Map<string, Language>();
  for (const language of LANGUAGES) for (const key of pick(LANGUAGE_NAMES[language]) ?? []) map.set(key, language);
  return map;
}

const byExtension = lookup((names) => names.extensions);
const byFileName = lookup((names) => names.fileNames);
const byInterpreter = lookup((names) => names.interpreters);

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
