/**
 * The terms SQLite's FTS5 indexes with `tokenize = 'porter unicode61 remove_diacritics 2'` (the
 * lexical index's tables, src/store), computed in TypeScript: a store without FTS5 (PostgreSQL)
 * indexes the same terms with the same counts, so its BM25 is the embedded store's.
 *
 * A port of SQLite 3.53's fts5_tokenize.c (unicode61, then porter) with the Unicode tables of its
 * fts5_unicode2.c, quirks included: those tables are older than JavaScript's (`\p{L}` would not
 * match them) and count code points they do not know as token characters; the stemmer works on
 * UTF-8 bytes (a non-ASCII byte is a consonant), leaves tokens under 3 or over 64 bytes alone, and
 * can cut a multi-byte character in two; the index keeps at most 32,768 bytes of a token. Such cut
 * bytes come back from SQLite, and from here, as U+FFFD. test/text/fts-tokens.test.ts checks it
 * against SQLite itself, every code point and real text.
 */
import { DIACRITIC_BASES, DIACRITIC_KEYS, FOLD, FOLD_OFFSET, TOKEN_RUNS } from './fts-unicode-tables.js';

/** The tokenizer this module reproduces, as FTS5 spells it. */
export const FTS_TOKENIZE = 'porter unicode61 remove_diacritics 2';

/** Tokens longer than this (bytes) are indexed unstemmed (FTS5_PORTER_MAX_TOKEN). */
const PORTER_MAX_BYTES = 64;
/** The index keeps this many bytes of a longer token (FTS5_MAX_TOKEN_SIZE). */
const MAX_TOKEN_BYTES = 32_768;
/** Terms remembered by the word as written: code repeats its names. */
const CACHE_LIMIT = 100_000;

const SEPARATOR = 0;
const TOKEN = 1;
/** A combining mark that unicode61 keeps inside a token (and folds away) but never starts one with. */
const DIACRITIC = 2;

/** The terms of a text, in order, one per token (their number is the column size BM25 uses). */
export function ftsTokens(text: string): string[] {
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c < 128) {
      if (ASCII[c] === SEPARATOR) {
        i++;
        continue;
      }
    } else {
      const cp = codePoint(text, i, c);
      if (classOf(cp) !== TOKEN) {
        i += cp > 0xffff ? 2 : 1;
        continue;
      }
    }
    const start = i;
    let ascii = true;
    while (i < n) {
      c = text.charCodeAt(i);
      if (c < 128) {
        if (ASCII[c] === SEPARATOR) break;
        i++;
      } else {
        const cp = codePoint(text, i, c);
        if (classOf(cp) === SEPARATOR) break;
        ascii = false;
        i += cp > 0xffff ? 2 : 1;
      }
    }
    out.push(term(text.slice(start, i), ascii));
  }
  return out;
}

/** Each term of a text with the number of times it occurs (what FTS5's instance table counts). */
export function termCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of ftsTokens(text)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

/**
 * The code point at i (c is its first unit), as unicode61 reads it: a lone surrogate is U+FFFD (Node
 * encodes it so for SQLite), and so are U+FFFE and U+FFFF (SQLite's UTF-8 reader).
 */
function codePoint(text: string, i: number, c: number): number {
  if (c < 0xd800) return c;
  if (c > 0xdfff) return c >= 0xfffe ? 0xfffd : c;
  if (c < 0xdc00) {
    const low = text.charCodeAt(i + 1);
    if (low >= 0xdc00 && low <= 0xdfff) return 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
  }
  return 0xfffd;
}

const cache = new Map<string, string>();

/** A token's term: folded, diacritics removed, stemmed, cut to the index's limit. */
function term(raw: string, ascii: boolean): string {
  const known = cache.get(raw);
  if (known !== undefined) return known;
  const t = ascii ? asciiTerm(raw) : unicodeTerm(raw);
  if (raw.length <= PORTER_MAX_BYTES) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(raw, t);
  }
  return t;
}

const BUF = new Uint8Array(PORTER_MAX_BYTES + 8);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function asciiTerm(raw: string): string {
  const lower = raw.toLowerCase();
  const n = lower.length;
  if (n < 3 || n > PORTER_MAX_BYTES) return n > MAX_TOKEN_BYTES ? lower.slice(0, MAX_TOKEN_BYTES) : lower;
  for (let i = 0; i < n; i++) BUF[i] = lower.charCodeAt(i);
  return String.fromCharCode(...BUF.subarray(0, porter(BUF, n)));
}

function unicodeTerm(raw: string): string {
  let folded = '';
  let bytes = 0;
  for (const ch of raw) {
    const f = fold(ch.codePointAt(0)!);
    if (f === 0) continue;
    folded += f === ch.codePointAt(0) ? ch : String.fromCodePoint(f);
    bytes += f < 0x80 ? 1 : f < 0x800 ? 2 : f < 0x10000 ? 3 : 4;
  }
  if (bytes >= 3 && bytes <= PORTER_MAX_BYTES) {
    const n = encodeShort(folded);
    return decodeShort(BUF, porter(BUF, n));
  }
  return bytes > MAX_TOKEN_BYTES ? decoder.decode(encoder.encode(folded).subarray(0, MAX_TOKEN_BYTES)) : folded;
}

/** Writes a string of at most PORTER_MAX_BYTES UTF-8 bytes into BUF; returns their number. */
function encodeShort(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) {
      BUF[n++] = c;
    } else if (c < 0x800) {
      BUF[n++] = 0xc0 | (c >> 6);
      BUF[n++] = 0x80 | (c & 0x3f);
    } else if (c < 0x10000) {
      BUF[n++] = 0xe0 | (c >> 12);
      BUF[n++] = 0x80 | ((c >> 6) & 0x3f);
      BUF[n++] = 0x80 | (c & 0x3f);
    } else {
      BUF[n++] = 0xf0 | (c >> 18);
      BUF[n++] = 0x80 | ((c >> 12) & 0x3f);
      BUF[n++] = 0x80 | ((c >> 6) & 0x3f);
      BUF[n++] = 0x80 | (c & 0x3f);
    }
  }
  return n;
}

/** b[0..n) as a string; a character porter cut in two becomes U+FFFD, as SQLite's text reaches Node. */
function decodeShort(b: Uint8Array, n: number): string {
  let out = '';
  for (let i = 0; i < n; ) {
    const c = b[i]!;
    if (c < 0x80) {
      out += String.fromCharCode(c);
      i++;
      continue;
    }
    const length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (i + length > n) return decoder.decode(b.subarray(0, n));
    let cp = c & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) cp = (cp << 6) | (b[i + k]! & 0x3f);
    out += String.fromCodePoint(cp);
    i += length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// unicode61: which code points make tokens, and how they fold.

let classes: Uint8Array | undefined;

/** SEPARATOR, TOKEN or DIACRITIC, by SQLite's tables ('L* N* Co', plus code points they do not list). */
function classOf(cp: number): number {
  if (cp >= 0x100000) return TOKEN; // past the tables: "unassigned", which unicode61 counts as a token character
  classes ??= buildClasses();
  return classes[cp]!;
}

/** The code points' classes from TOKEN_RUNS (see there), then the diacritics. */
function buildClasses(): Uint8Array {
  const table = new Uint8Array(0x100000);
  let at = 0;
  let cls = SEPARATOR;
  for (const run of TOKEN_RUNS.split(' ')) {
    const end = Math.min(at + Number.parseInt(run, 36), table.length);
    if (cls === TOKEN) table.fill(TOKEN, at, end);
    at = end;
    cls = cls === TOKEN ? SEPARATOR : TOKEN;
  }
  for (let cp = 768; cp <= 817; cp++) if (table[cp] === SEPARATOR && isDiacritic(cp)) table[cp] = DIACRITIC;
  return table;
}

/** sqlite3Fts5UnicodeIsdiacritic. */
function isDiacritic(c: number): boolean {
  if (c < 768 || c > 817) return false;
  return c < 800 ? ((0x08029fdf >>> (c - 768)) & 1) === 1 : ((0x000361f8 >>> (c - 800)) & 1) === 1;
}

/** sqlite3Fts5UnicodeFold with remove_diacritics=2; 0 means the code point is dropped. */
function fold(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c + 32 : c;
  if (c < 65536) {
    let lo = 0;
    let hi = FOLD.length / 3 - 1;
    let res = 0;
    while (hi >= lo) {
      const mid = (lo + hi) >> 1;
      if (c >= FOLD[mid * 3]!) {
        res = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    const code = FOLD[res * 3]!;
    const flags = FOLD[res * 3 + 1]!;
    let ret = c;
    if (c < code + FOLD[res * 3 + 2]! && (1 & flags & (code ^ c)) === 0) ret = (c + FOLD_OFFSET[flags >> 1]!) & 0xffff;
    return removeDiacritic(ret);
  }
  return c >= 66560 && c < 66600 ? c + 40 : c;
}

/** fts5_remove_diacritic(c, bComplex = 1): a Latin letter with marks, without them. */
function removeDiacritic(c: number): number {
  const key = (c << 3) | 7;
  let lo = 0;
  let hi = DIACRITIC_KEYS.length - 1;
  let res = 0;
  while (hi >= lo) {
    const mid = (lo + hi) >> 1;
    if (key >= DIACRITIC_KEYS[mid]!) {
      res = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  const entry = DIACRITIC_KEYS[res]!;
  if (c > (entry >> 3) + (entry & 7)) return c;
  const base = DIACRITIC_BASES[res]!;
  return base === '-' ? 0 : base.toLowerCase().charCodeAt(0);
}

// ---------------------------------------------------------------------------------------------
// porter: fts5PorterCb, on the token's UTF-8 bytes (b[0..n), 3 <= n <= 64); returns the new length.

function porter(b: Uint8Array, n: number): number {
  // Step 1a.
  if (b[n - 1] === S) {
    if (b[n - 2] === E) n -= (n > 4 && b[n - 4] === S && b[n - 3] === S) || (n > 3 && b[n - 3] === I) ? 2 : 1;
    else if (b[n - 2] !== S) n -= 1;
  }
  // Step 1b.
  let removed = false;
  if (ends(b, n, 'eed')) {
    if (mGt0(b, n - 3)) n -= 1;
  } else if (ends(b, n, 'ed') || ends(b, n, 'ing')) {
    const k = b[n - 1] === D ? 2 : 3;
    if (hasVowel(b, n - k)) {
      n -= k;
      removed = true;
    }
  }
  if (removed) {
    if (ends(b, n, 'at') || ends(b, n, 'bl') || ends(b, n, 'iz')) {
      b[n++] = E;
    } else {
      const c = b[n - 1]!;
      if (!isVowel(c, false) && c !== L && c !== S && c !== Z && c === b[n - 2]) n--;
      else if (mEq1(b, n) && oStar(b, n)) b[n++] = E;
    }
  }
  // Step 1c.
  if (b[n - 1] === Y && hasVowel(b, n - 1)) b[n - 1] = I;
  // Steps 2 to 4.
  n = applyRules(b, n, STEP2);
  n = applyRules(b, n, STEP3);
  n = applyRules(b, n, STEP4);
  // Step 5a.
  if (b[n - 1] === E && (mGt1(b, n - 1) || (mEq1(b, n - 1) && !oStar(b, n - 1)))) n--;
  // Step 5b.
  if (n > 1 && b[n - 1] === L && b[n - 2] === L && mGt1(b, n - 1)) n--;
  return n;
}

const [D, E, I, L, S, Y, Z] = [100, 101, 105, 108, 115, 121, 122] as const;

type Condition = (b: Uint8Array, n: number) => boolean;
/** A suffix, the condition on what precedes it, and its replacement. */
type Rule = readonly [suffix: string, condition: Condition, replacement: string];

/** A step's rules by their suffix's last but one byte: fts5_porter's switch, all the word can match. */
type Step = readonly (readonly Rule[] | undefined)[];

function step(rules: readonly Rule[]): Step {
  const table: Rule[][] = [];
  for (const rule of rules) (table[rule[0].charCodeAt(rule[0].length - 2)] ??= []).push(rule);
  return table;
}

/** The first rule whose suffix ends the word (after at least one byte) decides; none other is tried. */
function applyRules(b: Uint8Array, n: number, rules: Step): number {
  if (n < 2) return n;
  for (const [suffix, condition, replacement] of rules[b[n - 2]!] ?? []) {
    if (!ends(b, n, suffix)) continue;
    const stem = n - suffix.length;
    if (!condition(b, stem)) return n;
    for (let i = 0; i < replacement.length; i++) b[stem + i] = replacement.charCodeAt(i);
    return stem + replacement.length;
  }
  return n;
}

/** Whether b[0..n) ends with the suffix and is longer than it. */
function ends(b: Uint8Array, n: number, suffix: string): boolean {
  const k = suffix.length;
  if (n <= k) return false;
  for (let i = 0; i < k; i++) if (b[n - k + i] !== suffix.charCodeAt(i)) return false;
  return true;
}

function isVowel(c: number, yIsVowel: boolean): boolean {
  return c === 97 || c === E || c === I || c === 111 || c === 117 || (yIsVowel && c === Y);
}

/** fts5PorterGobbleVC: the length of the first vowels-then-consonant run of b[from..n), or 0. */
function gobbleVC(b: Uint8Array, from: number, n: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = from;
  for (; i < n; i++) if (!(consonant = !isVowel(b[i]!, consonant))) break;
  for (i++; i < n; i++) if ((consonant = !isVowel(b[i]!, consonant))) return i + 1 - from;
  return 0;
}

/** m > 0. */
function mGt0(b: Uint8Array, n: number): boolean {
  return gobbleVC(b, 0, n, false) > 0;
}

/** m > 1. */
function mGt1(b: Uint8Array, n: number): boolean {
  const k = gobbleVC(b, 0, n, false);
  return k > 0 && gobbleVC(b, k, n, true) > 0;
}

/** m = 1. */
function mEq1(b: Uint8Array, n: number): boolean {
  const k = gobbleVC(b, 0, n, false);
  return k > 0 && gobbleVC(b, k, n, true) === 0;
}

/** *o: ends consonant, vowel, consonant, the last not w, x or y. */
function oStar(b: Uint8Array, n: number): boolean {
  const last = b[n - 1];
  if (last === 119 || last === 120 || last === Y) return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(b[i]!, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}

/** m > 1 and *S or *T. */
function mGt1SorT(b: Uint8Array, n: number): boolean {
  return (b[n - 1] === S || b[n - 1] === 116) && mGt1(b, n);
}

/** *v*: a vowel (y after the first letter counts). */
function hasVowel(b: Uint8Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(b[i]!, i > 0)) return true;
  return false;
}

/** Step 2 (m > 0 for every rule), in fts5_porter's order. */
const STEP2 = step(
  (
    [
      ['ational', 'ate'],
      ['tional', 'tion'],
      ['enci', 'ence'],
      ['anci', 'ance'],
      ['izer', 'ize'],
      ['logi', 'log'],
      ['bli', 'ble'],
      ['alli', 'al'],
      ['entli', 'ent'],
      ['eli', 'e'],
      ['ousli', 'ous'],
      ['ization', 'ize'],
      ['ation', 'ate'],
      ['ator', 'ate'],
      ['alism', 'al'],
      ['iveness', 'ive'],
      ['fulness', 'ful'],
      ['ousness', 'ous'],
      ['aliti', 'al'],
      ['iviti', 'ive'],
      ['biliti', 'ble'],
    ] as const
  ).map(([suffix, replacement]): Rule => [suffix, mGt0, replacement]),
);

/** Step 3 (m > 0 for every rule). */
const STEP3 = step(
  (
    [
      ['ical', 'ic'],
      ['ness', ''],
      ['icate', 'ic'],
      ['iciti', 'ic'],
      ['ful', ''],
      ['ative', ''],
      ['alize', 'al'],
    ] as const
  ).map(([suffix, replacement]): Rule => [suffix, mGt0, replacement]),
);

/** Step 4: suffixes removed where m > 1 (ion: and after s or t). */
const STEP4 = step([
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent'].map(
    (suffix): Rule => [suffix, mGt1, ''],
  ),
  ['ion', mGt1SorT, ''],
  ...['ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize'].map((suffix): Rule => [suffix, mGt1, '']),
]);

// ---------------------------------------------------------------------------------------------
// SQLite's tables (fts5_unicode2.c, SQLite 3.53.2, the amalgamation better-sqlite3 builds).

/** Token characters for ASCII (letters and digits; NUL never). */
const ASCII = new Uint8Array(128).map((_, c) => (/[0-9A-Za-z]/.test(String.fromCharCode(c)) ? TOKEN : SEPARATOR));
