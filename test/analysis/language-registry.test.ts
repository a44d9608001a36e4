import { OWN_EXTRACTORS } from '../../src/analysis/own-extractors.js';
import { readdirSync } from 'node:fs';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LanguageRecord } from '../../src/analysis/language-record.js';
import { LANGUAGE_RECORDS, type Language as RegistryLanguage } from '../../src/analysis/language-registry.js';
import {
  canonicalLanguage,
  detectLanguage,
  LANGUAGE_ALIASES,
  LANGUAGE_NAMES,
  LANGUAGES,
} from '../../src/analysis/language-names.js';
import { analysisOf } from '../../src/analysis/languages.js';
import type { Language } from '../../src/index.js';

/** The Language users import is the registry's names, no more and no fewer (checked by the compiler). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const LANGUAGE_IS_THE_REGISTRY: Same<Language, RegistryLanguage> = true;
const NAMES_ARE_LITERALS: Same<string extends RegistryLanguage ? true : false, false> = true;

const RECORDS: readonly LanguageRecord[] = LANGUAGE_RECORDS;
/** Where the records are, one file each. */
const FOLDER = new URL('../../src/analysis/languages/', import.meta.url);

/** What is wrong with one record, one sentence each; empty when it is complete. */
function problemsOf(record: LanguageRecord): string[] {
  const problems: string[] = [];
  const { name, analysis } = record;
  if (!/^[a-z][a-z0-9+#-]*$/.test(name)) problems.push(`name "${name}" is not a lower-case word`);
  // extname() gives the last dot and what follows, lower-cased by detectLanguage.
  for (const extension of record.extensions)
    if (!/^\.[^.A-Z\s]+$/.test(extension)) problems.push(`extension "${extension}" is not ".lower-case" with one dot`);
  for (const fileName of record.fileNames ?? [])
    if (fileName !== basename(fileName) || fileName === '') problems.push(`file name "${fileName}" is not a base name`);
  // shebangInterpreter() drops a version suffix, so "python3" would never match.
  for (const interpreter of record.interpreters ?? [])
    if (!/^[a-z][a-z0-9-]*[a-z]$/.test(interpreter))
      problems.push(`interpreter "${interpreter}" cannot match a #! line`);
  for (const alias of record.aliases ?? [])
    if (alias !== alias.trim().toLowerCase() || alias === '')
      problems.push(`alias "${alias}" is not trimmed lower case`);
  switch (analysis.kind) {
    case 'code': {
      if (!/tree-sitter/.test(analysis.grammar.package))
        problems.push(`grammar "${analysis.grammar.package}" is not a tree-sitter package`);
      if (!Array.isArray(analysis.callTypes)) problems.push('callTypes is not a list');
      if ('table' in analysis) {
        if (!analysis.table.query.includes('@definition.')) problems.push('its table finds no definitions');
        if (!analysis.table.defaultAccess) problems.push('its table has no default access');
      } else if (!Object.hasOwn(OWN_EXTRACTORS, analysis.extractor))
        problems.push(`it has neither a table nor an extractor of its own (${String(analysis.extractor)})`);
      break;
    }
    case 'config':
      if (typeof analysis.keys !== 'function') problems.push('a config language without a key reader');
      break;
    case 'markdown':
    case 'text':
      break;
    default:
      problems.push(`analysis kind "${(analysis as { kind: string }).kind}" is none of code, markdown, config, text`);
  }
  return problems;
}

/** Keys (extensions, file names, interpreters, aliases and names) that two languages claim. */
function claimedTwice(records: readonly LanguageRecord[]): string[] {
  const owners = new Map<string, string>();
  const clashes: string[] = [];
  const claim = (key: string, name: string) => {
    const owner = owners.get(key);
    if (owner !== undefined && owner !== name) clashes.push(`${key}: ${owner} and ${name}`);
    owners.set(key, name);
  };
  for (const { name, extensions, fileNames, interpreters, aliases } of records) {
    for (const extension of extensions) claim(`extension ${extension}`, name);
    for (const fileName of fileNames ?? []) claim(`file name ${fileName}`, name);
    for (const interpreter of interpreters ?? []) claim(`interpreter ${interpreter}`, name);
    // A name and an alias are both what canonicalLanguage() reads: one space.
    claim(`name ${name}`, name);
    for (const alias of aliases ?? []) claim(`name ${alias}`, name);
  }
  return clashes;
}

describe('the language registry', () => {
  it('is complete: every record has its names and its analysis', () => {
    expect(LANGUAGE_IS_THE_REGISTRY && NAMES_ARE_LITERALS).toBe(true);
    expect(Object.fromEntries(RECORDS.map((record) => [record.name, problemsOf(record)]))).toEqual(
      Object.fromEntries(RECORDS.map((record) => [record.name, []])),
    );
  });

  it('finds what is missing in a broken record', () => {
    const broken = {
      name: 'Toy Lang',
      extensions: ['toy', '.d.toy'],
      interpreters: ['toy3'],
      aliases: [' Toy'],
      analysis: { kind: 'code', grammar: { package: 'toy' }, callTypes: [] },
    } as unknown as LanguageRecord;
    expect(problemsOf(broken)).toEqual([
      'name "Toy Lang" is not a lower-case word',
      'extension "toy" is not ".lower-case" with one dot',
      'extension ".d.toy" is not ".lower-case" with one dot',
      'interpreter "toy3" cannot match a #! line',
      'alias " Toy" is not trimmed lower case',
      'grammar "toy" is not a tree-sitter package',
      'it has neither a table nor an extractor of its own (undefined)',
    ]);
    expect(
      problemsOf({ name: 'ini', extensions: ['.ini'], analysis: { kind: 'config' } } as unknown as LanguageRecord),
    ).toEqual(['a config language without a key reader']);
  });

  it('gives every extension, file name, interpreter and name to one language', () => {
    expect(claimedTwice(RECORDS)).toEqual([]);
    // The check sees a clash that a lookup table would settle silently (the last record winning).
    const go = RECORDS.find((record) => record.name === 'go')!;
    const rival = { ...go, name: 'go-rival', aliases: ['golang'], extensions: ['.go', '.go-rival'] };
    expect(claimedTwice([...RECORDS, rival])).toEqual([
      'extension .go: go and go-rival',
      'name golang: go and go-rival',
    ]);
    // `.h` is C's: a header is C++ only when its opening text says so (detectLanguage).
    expect(detectLanguage('x.h', 'int f(void);\n')).toBe('c');
    expect(detectLanguage('x.h', 'namespace a {\n')).toBe('cpp');
  });

  it('is the only list: every record file is registered once, under its file name', async () => {
    const files = readdirSync(FOLDER).filter((file) => file.endsWith('.ts'));
    const exported = await Promise.all(
      files.map(async (file) => {
        const module = (await import(/* @vite-ignore */ new URL(file, FOLDER).pathname)) as Record<string, unknown>;
        const records = Object.values(module).filter((value) => RECORDS.includes(value as LanguageRecord));
        return [basename(file, '.ts'), records.map((record) => (record as LanguageRecord).name)] as const;
      }),
    );
    expect(Object.fromEntries(exported)).toEqual(Object.fromEntries(exported.map(([file]) => [file, [file]])));
    expect(new Set(RECORDS).size).toBe(RECORDS.length);
    expect(files).toHaveLength(RECORDS.length);
  });

  it('is what names, detection and analysis read, in its order', () => {
    const names = RECORDS.map((record) => record.name);
    expect(LANGUAGES).toEqual(names);
    expect(Object.keys(LANGUAGE_NAMES)).toEqual(names);
    expect(Object.values(LANGUAGE_ALIASES)).toEqual(
      RECORDS.flatMap((record) => (record.aliases ?? []).map(() => record.name)),
    );
    for (const record of RECORDS) {
      expect(canonicalLanguage(record.name.toUpperCase())).toBe(record.name);
      expect(analysisOf(record.name as Language).kind).toBe(record.analysis.kind);
      for (const extension of record.extensions)
        expect(detectLanguage(`file${extension}`), extension).toBe(record.name);
    }
    // Whatever no record claims is text: the one language with no extension.
    expect(RECORDS.filter((record) => record.extensions.length === 0).map((record) => record.name)).toEqual(['text']);
    expect(detectLanguage('notes.unknown')).toBe('text');
  });
});
