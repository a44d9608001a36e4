/**
 * References (issue 29): a symbol's definitions, then every line where its
 * name occurs as a whole word, by file, the defining file first; calls
 * marked where the syntax tree calls the name. Checked against a grep -w
 * of the indexed files, and kept right as files change.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, Searcher, SearchError } from '../../src/internal.js';
import { decodeSites, wordOccurrences } from '../../src/text/occurrences.js';
import { tempRepo, type TempRepo } from '../helpers/repo.js';

const FILES = {
  'src/users.ts': [
    '/** Loads a user. */',
    'export function loadUser(id: string) {',
    '  return fetchUser(id);',
    '}',
    '',
    'export class UserStore {',
    '  load(id: string) {',
    '    const cached = loadUser(id); // loadUser again, in a comment',
    '    return cached;',
    '  }',
    '}',
  ].join('\n'),
  'src/api.ts': [
    "import { loadUser } from './users';",
    "const label = 'loadUser';",
    'export const handler = () => loadUser("42");',
    'const loadUserById = 1; // a longer name: not an occurrence',
  ].join('\n'),
  'tools/report.py': ['from users import load_user', '', 'def report():', '    return load_user(1)', ''].join('\n'),
  'docs/guide.md': ['# Users', '', 'Call `loadUser` to get one.', ''].join('\n'),
};

/** grep -w, line by line: the lines of `text` holding `word` delimited by non-word characters. */
function grepLines(text: string, word: string): number[] {
  const pattern = new RegExp(`(^|[^\\p{L}\\p{N}_])${word}($|[^\\p{L}\\p{N}_])`, 'u');
  return text.split('\n').flatMap((line, i) => (pattern.test(line) ? [i + 1] : []));
}

describe('references', () => {
  let repo: TempRepo;
  let searcher: Searcher;

  beforeAll(async () => {
    repo = tempRepo(FILES);
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    searcher = await Searcher.open({ indexDir: join(repo.root, '.ocvector') });
  });
  afterAll(() => {
    searcher.close();
    repo.cleanup();
  });

  it('lists the definition, then every line that names the symbol, by file, the defining file first', async () => {
    const refs = await searcher.references('loadUser');
    expect(refs.definitions.map((d) => `${d.path}:${d.startLine} ${d.name}`)).toEqual(['src/users.ts:2 loadUser']);
    expect(refs.files.map((file) => file.path)).toEqual(['src/users.ts', 'docs/guide.md', 'src/api.ts']);
    const users = refs.files[0]!;
    expect(users.defines).toBe(true);
    expect(users.sites.map((site) => [site.line, site.call, site.definition])).toEqual([
      [2, false, true],
      [8, true, false],
    ]);
    expect(users.sites[1]).toMatchObject({ text: '    const cached = loadUser(id); // loadUser again, in a comment' });
    expect(users.sites[1]!.element).toMatchObject({ name: 'UserStore.load', startLine: 7, endLine: 10 });
    // A string, an import and a call; never the longer name.
    const api = refs.files[2]!;
    expect(api.sites.map((site) => [site.line, site.call])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(refs.total).toBe(6);
    expect(refs.totalFiles).toBe(3);
    expect(refs.truncated).toBe(false);
  });

  it('finds every line grep -w finds, in every indexed file, for every word of the fixture', async () => {
    const words = new Set(Object.values(FILES).flatMap((text) => text.match(/[A-Za-z_]\w+/g) ?? []));
    for (const word of words) {
      const refs = await searcher.references(word);
      const found = new Set(refs.files.flatMap((file) => file.sites.map((site) => `${file.path}:${site.line}`)));
      const expected = Object.entries(FILES).flatMap(([path, text]) =>
        grepLines(text, word).map((n) => `${path}:${n}`),
      );
      expect([...found].sort(), word).toEqual(expected.sort());
    }
  });

  it('marks calls in other parsed languages, and narrows definitions by a qualified name', async () => {
    const python = await searcher.references('load_user');
    expect(python.files[0]!.sites.map((site) => [site.line, site.call])).toEqual([
      [1, false],
      [4, true],
    ]);
    const method = await searcher.references('UserStore.load');
    expect(method.definitions.map((d) => d.name)).toEqual(['UserStore.load']);
    expect((await searcher.references('Other.load')).definitions).toEqual([]);
  });

  it('cuts the list at the limit and says so; refuses what is not a name', async () => {
    const cut = await searcher.references('loadUser', { limit: 3 });
    expect(cut.files.flatMap((file) => file.sites)).toHaveLength(3);
    expect(cut).toMatchObject({ total: 6, truncated: true });
    await expect(searcher.references('a b')).rejects.toThrow(SearchError);
    await expect(searcher.references('')).rejects.toThrow(/name a symbol/);
    await expect(searcher.references('loadUser', { limit: 0 })).rejects.toThrow(/limit must be an integer/);
    expect((await searcher.references('neverWritten')).files).toEqual([]);
  });

  it('follows the files as they change: lines added, files deleted', async () => {
    repo.write('src/extra.ts', "import { loadUser } from './users';\n\nloadUser('x');\n");
    repo.remove('docs/guide.md');
    await new Indexer({ path: repo.root, embedder: 'builtin', llm: false }).run();
    const refs = await searcher.references('loadUser');
    expect(refs.files.map((file) => file.path)).toEqual(['src/users.ts', 'src/api.ts', 'src/extra.ts']);
    expect(refs.files[2]!.sites.map((site) => [site.line, site.call])).toEqual([
      [1, false],
      [3, true],
    ]);
  });
});

describe('word occurrences', () => {
  it('records each word once per line, as grep -w delimits words, with calls marked', () => {
    const text = 'a = foo(foo)\n2fa x_1 foo\n\nfoo.bar()';
    const occurrences = wordOccurrences(text, new Map([['foo', new Set([1])]]));
    expect(occurrences.get('foo')).toBe('1c,2,4');
    expect(decodeSites(occurrences.get('foo')!)).toEqual([
      { line: 1, call: true },
      { line: 2, call: false },
      { line: 4, call: false },
    ]);
    expect(occurrences.get('x_1')).toBe('2');
    // `2fa` starts with a digit (no name), `a` is one character.
    expect(occurrences.has('fa')).toBe(false);
    expect(occurrences.has('a')).toBe(false);
  });

  it('agrees with grep -w on a real file', () => {
    const text = readFileSync(new URL('../../src/search/searcher.ts', import.meta.url), 'utf8');
    const occurrences = wordOccurrences(text);
    for (const word of ['search', 'SearchError', 'k', 'readSnapshot', '_search'].filter((w) => w.length > 1))
      expect(
        decodeSites(occurrences.get(word) ?? '').map((site) => site.line),
        word,
      ).toEqual(grepLines(text, word));
  });
});
