import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite, prepared } from '../../src/store/embedded/sqlite.js';
import { FTS_TOKENIZE, ftsTokens, termCounts } from '../../src/text/fts-tokens.js';
import { lexicalText } from '../../src/text/terms.js';

// SQLite itself is the reference: an FTS5 table with the lexical index's tokenizer, and its
// fts5vocab 'instance' table, which lists every token of every document with its position.
const db = openSqlite(':memory:');
db.exec(`
  CREATE VIRTUAL TABLE docs USING fts5(body, tokenize = '${FTS_TOKENIZE}');
  CREATE VIRTUAL TABLE instances USING fts5vocab(docs, 'instance');`);
afterAll(() => db.close());

// Made through the store's module, which keeps every better-sqlite3 object alive (sqlite.ts says why).
const insert = prepared<[number, string]>(db, 'INSERT INTO docs (rowid, body) VALUES (?, ?)');
const tokensOf = prepared<[], [string, number, number]>(db, 'SELECT term, doc, offset FROM instances').raw();
const countsOf = prepared<[], [number, string, number]>(
  db,
  'SELECT doc, term, count(*) FROM instances GROUP BY doc, term',
).raw();

/** Each text's tokens as SQLite indexes them, in order. */
function sqliteTokens(texts: readonly string[]): string[][] {
  db.exec('DELETE FROM docs');
  db.transaction(() => texts.forEach((text, i) => insert.run(i + 1, text)))();
  const out = texts.map((): string[] => []);
  for (const [term, doc, offset] of tokensOf.all()) out[doc - 1]![offset] = term;
  return out;
}

/** Each text's term counts as SQLite has them (the texts must be in the table: after sqliteTokens). */
function sqliteCounts(n: number): Map<string, number>[] {
  const out = Array.from({ length: n }, () => new Map<string, number>());
  for (const [doc, term, count] of countsOf.all()) out[doc - 1]!.set(term, count);
  return out;
}

const root = join(import.meta.dirname, '..', '..');

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => join(dir, name))
    .filter((path) => keep(path) && statSync(path).isFile())
    .sort();
}

/** Real text: this repository's code (as written, and as the store feeds FTS5), its docs, fixtures and npm packages' READMEs. */
function corpus(): { name: string; text: string }[] {
  const docs: { name: string; text: string }[] = [];
  const add = (path: string, text = readFileSync(path, 'utf8')) => docs.push({ name: relative(root, path), text });
  for (const path of filesUnder(join(root, 'src'), (p) => p.endsWith('.ts'))) {
    const text = readFileSync(path, 'utf8');
    add(path, text);
    docs.push({ name: `lexicalText(${relative(root, path)})`, text: lexicalText(text) });
    docs.push({ name: `lexicalText(path of ${relative(root, path)})`, text: lexicalText(relative(root, path)) });
  }
  add(join(root, 'README.md'));
  for (const path of filesUnder(join(root, 'docs'), (p) => p.endsWith('.md'))) add(path);
  for (const path of filesUnder(join(root, 'test', 'fixtures', 'analysis'), (p) => !p.endsWith('.json'))) add(path);
  add(join(root, 'test', 'fixtures', 'search-repo', 'tools', 'dedupe.py'));
  const modules = join(root, 'node_modules');
  for (const path of filesUnder(modules, (p) => /\.(md|markdown)$/i.test(p))) add(path);
  return docs;
}

describe('ftsTokens', () => {
  it('gives the tokens SQLite FTS5 gives, document by document, on real text', () => {
    const docs = corpus();
    expect(docs.length).toBeGreaterThan(700);
    const expected = sqliteTokens(docs.map((d) => d.text));
    const counts = sqliteCounts(docs.length);
    let tokens = 0;
    docs.forEach((doc, i) => {
      const actual = ftsTokens(doc.text);
      if (actual.length !== expected[i]!.length || actual.some((t, k) => t !== expected[i]![k])) {
        const k = actual.findIndex((t, j) => t !== expected[i]![j]);
        expect.fail(
          `${doc.name}: token ${k}: ${JSON.stringify(actual[k])} != SQLite's ${JSON.stringify(expected[i]![k])}`,
        );
      }
      expect(termCounts(doc.text), doc.name).toEqual(counts[i]);
      tokens += actual.length;
    });
    expect(tokens).toBeGreaterThan(500_000);
  });

  it('classifies and folds every code point as SQLite does', () => {
    // Each code point c as `xcx cx`: a token character joins the x's (folded), a separator splits
    // them, and a combining mark joins them but cannot start a token. The x's keep porter away.
    // Every code point of the planes SQLite's tables describe (0-2, 14, 15); in the others, where
    // they list nothing (every code point "unassigned"), one in 97 and each plane's ends.
    const described = new Set([0, 1, 2, 14, 15]);
    const texts: string[] = [];
    for (let start = 0; start < 0x110000; start += 0x4000) {
      let text = '';
      for (let cp = start; cp < start + 0x4000; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        if (!described.has(cp >> 16) && cp % 97 !== 0 && (cp & 0xffff) !== 0 && (cp & 0xffff) !== 0xffff) continue;
        const c = String.fromCodePoint(cp);
        text += `x${c}x ${c}x\n`;
      }
      texts.push(text);
    }
    const expected = sqliteTokens(texts);
    texts.forEach((text, k) => {
      const actual = ftsTokens(text);
      const j = actual.findIndex((t, n) => t !== expected[k]![n]);
      if (j >= 0 || actual.length !== expected[k]!.length) {
        const at = j >= 0 ? j : Math.min(actual.length, expected[k]!.length);
        expect.fail(`token ${at} of ${text.slice(0, 20)}…: ${actual[at]} != SQLite's ${expected[k]![at]}`);
      }
    });
  });

  /** Texts that each exercise one rule; SQLite must agree with every one. */
  const CASES: [string, string[]][] = [
    ['', []],
    ['  \t\n.,;:!?-_/\\()[]{}<>"\'`~@#$%^&*+=|', []],
    ['HTTPServer getUserById get_user_by_id', ['httpserver', 'getuserbyid', 'get', 'user', 'by', 'id']],
    // Diacritics: removed where SQLite's table has the letter (not ø, ł), combining marks dropped inside a
    // token and separators before one; case folded by SQLite's table (ß stays, and so does its e: "straß").
    [
      'Crème Brûlée naïve café Ærøskøbing Łódź Ångström',
      ['creme', 'brule', 'naiv', 'cafe', 'ærøskøbing', 'łodz', 'angstrom'],
    ],
    ['cafe\u0301 e\u0301t\u00e9 \u0301alone ë', ['cafe', 'et', 'alon', 'e']],
    [
      'Straße ΑΘΗΝΑ ΣΊΣΥΦΟΣ Москва İstanbul ǅemal Ｆｕｌｌ',
      ['straß', 'αθηνα', 'σίσυφοσ', 'москва', 'istanbul', 'ǆemal', 'ｆｕｌｌ'],
    ],
    // Letters SQLite's case table does not know keep their case (Cherokee Ᏸ, U+13F0, Unicode 8).
    ['ᏸ Ᏸ', ['ᏸ', 'Ᏸ']],
    // CJK: letters, so a run of them is one token (unicode61 does not segment words).
    ['中文分词 日本語のテキスト 한국어 text中文', ['中文分词', '日本語のテキスト', '한국어', 'text中文']],
    // Digits: any Unicode number; everything else separates.
    ['2024-01-02 v1.2.3 0x1F 1e10 ١٢٣ ½ Ⅻ', ['2024', '01', '02', 'v1', '2', '3', '0x1f', '1e10', '١٢٣', '½', 'ⅻ']],
    ["don't it's O'Reilly’s", ['don', 't', 'it', 's', 'o', 'reilli', 's']],
    // Emoji: symbols separate, but those newer than SQLite's tables (the skin tone 🏽, Unicode 8; 🫨,
    // Unicode 15) are "unassigned" there, and unicode61 counts those as token characters.
    ['rocket🚀launch 👍🏽 ok ❤️ 🫨 a🫨b ⓐ', ['rocket', 'launch', '🏽', 'ok', '🫨', 'a🫨b']],
    // U+FFFE and U+FFFF read as U+FFFD: separators.
    ['a\ufffeb\uffffc', ['a', 'b', 'c']],
    // Astral letters (surrogate pairs) are letters; Deseret folds; a lone surrogate is U+FFFD, a separator.
    ['𝒳𝒴 𐐀𐐨 a\ud800b c\udc00d', ['𝒳𝒴', '𐐨𐐨', 'a', 'b', 'c', 'd']],
    ['a\u0000b', ['a', 'b']],
    // Porter, with its conditions.
    [
      'caresses ponies ties caress cats feed agreed plastered motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky',
      [
        'caress',
        'poni',
        'ti',
        'caress',
        'cat',
        'feed',
        'agre',
        'plaster',
        'motor',
        'sing',
        'conflat',
        'troubl',
        'size',
        'hop',
        'tan',
        'fall',
        'hiss',
        'fizz',
        'fail',
        'file',
        'happi',
        'sky',
      ],
    ],
    [
      'relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti',
      [
        'relat',
        'condit',
        'ration',
        'valenc',
        'hesit',
        'digit',
        'conform',
        'radic',
        'differ',
        'vile',
        'analog',
        'vietnam',
        'predic',
        'oper',
        'feudal',
        'decis',
        'hope',
        'callous',
        'formal',
        'sensit',
        'sensibl',
      ],
    ],
    // Short tokens (under 3 bytes) are not stemmed.
    ['is as us ed', ['is', 'as', 'us', 'ed']],
  ];

  it.each(CASES)('%j', (text, expected) => {
    expect(ftsTokens(text)).toEqual(expected);
    expect(sqliteTokens([text])[0]).toEqual(expected);
  });

  it('stems tokens of up to 64 bytes, after folding, and leaves longer ones alone', () => {
    const texts = [
      `b${'a'.repeat(60)}ing`, // 64 bytes: stemmed
      `b${'a'.repeat(61)}ing`, // 65: not
      `B${'A'.repeat(60)}ING`, // folded first
      `a${'ж'.repeat(30)}ing`, // 2-byte letters: 64 bytes
      `a${'ж'.repeat(31)}ing`, // 66 bytes
      `b${'é'.repeat(60)}ing`, // é folds to e: 64 bytes after folding
    ];
    const expected = sqliteTokens(texts);
    expect(texts.map((t) => ftsTokens(t))).toEqual(expected);
    expect(expected.map(([t]) => t!.length)).toEqual([61, 65, 61, 31, 35, 61]);
  });

  it('keeps the first 32,768 bytes of a longer token, as the index does', () => {
    const texts = [
      'a'.repeat(40_000),
      'ж'.repeat(20_000),
      `b ${'中'.repeat(11_000)} c`, // 33,000 bytes: cut inside a character
      'é'.repeat(33_000), // folds to 33,000 e's
    ];
    const expected = sqliteTokens(texts);
    expect(texts.map((t) => ftsTokens(t))).toEqual(expected);
    expect(expected[0]![0]).toBe('a'.repeat(32_768));
    expect(expected[1]![0]).toBe('ж'.repeat(16_384));
    expect(expected[2]).toEqual(['b', `${'中'.repeat(10_922)}\ufffd`, 'c']);
    expect(expected[3]![0]).toBe('e'.repeat(32_768));
  });

  it('reproduces porter cutting a multi-byte character in two (it works on bytes)', () => {
    // 丸 is E4 B8 B8: after "ing" goes, its last two bytes look like a double consonant.
    const texts = ['a丸ing', 'a丸ed', 'aжing', 'übung übungen'];
    expect(texts.map((t) => ftsTokens(t))).toEqual(sqliteTokens(texts));
    expect(ftsTokens('a丸ing a丸ed')).toEqual(['a\ufffd', 'a\ufffd']);
  });

  it('counts each term of a text', () => {
    expect(termCounts('Index indexes indexing the index.')).toEqual(
      new Map([
        ['index', 4],
        ['the', 1],
      ]),
    );
    expect(termCounts('')).toEqual(new Map());
  });
});
