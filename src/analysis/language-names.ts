/**
 * How the index names each language and recognises its files: extensions,
 * whole file names, `#!` interpreters, and what people (and models) type
 * for it, all read from the language records (language-registry.ts). Apart
 * from how a language is analysed (languages.ts), so that a search, which
 * filters by language but parses nothing, loads no extractor.
 */
import { basename, extname } from 'node:path';
import type { LanguageNames, LanguageRecord } from './language-record.js';
import { type Language, LANGUAGE_RECORDS } from './language-registry.js';

export type { LanguageNames };

/** The records, each under its name (the Language type says which names there are). */
const RECORDS = new Map<string, LanguageRecord>(LANGUAGE_RECORDS.map((record) => [record.name, record]));

/** Every language the index records, as filters name them, in the registry's order. */
export const LANGUAGES: readonly Language[] = LANGUAGE_RECORDS.map((record) => record.name);

/** How each language's files are recognised: its record, read as names. */
export const LANGUAGE_NAMES: Readonly<Record<Language, LanguageNames>> = Object.fromEntries(RECORDS) as Record<
  Language,
  LanguageRecord
>;

/** What people (and models) type for a language. */
export const LANGUAGE_ALIASES: Readonly<Record<string, Language>> = Object.fromEntries(
  LANGUAGE_RECORDS.flatMap((record) => (record.aliases ?? []).map((alias) => [alias, record.name] as const)),
);

/** Whether a language is read through a syntax tree (rather than as text), from its record alone. */
export function isCodeLanguage(language: Language): boolean {
  return RECORDS.get(language)?.analysis.kind === 'code';
}

/** A language as the index names it (aliases and case folded), or undefined when unknown. */
export function canonicalLanguage(name: string): Language | undefined {
  const lower = name.trim().toLowerCase();
  if (RECORDS.has(lower)) return lower as Language;
  return Object.hasOwn(LANGUAGE_ALIASES, lower) ? LANGUAGE_ALIASES[lower] : undefined;
}

function lookup(pick: (names: LanguageNames) => readonly string[] | undefined): Map<string, Language> {
  const map = new Map<string, Language>();
  for (const record of LANGUAGE_RECORDS) for (const key of pick(record) ?? []) map.set(key, record.name);
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
