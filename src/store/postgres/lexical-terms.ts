/**
 * What the Postgres store's lexical rows hold, computed in TypeScript as SQLite's FTS5 computes it
 * for the embedded store (text/fts-tokens.ts reproduces its tokenizer): per element and table,
 * each term's count in each column and the columns' lengths in tokens. Shared by the writer (which
 * stores them) and the reader (which tokenizes query terms the same way, and finds a quoted
 * term of several tokens, a phrase, in the stored texts).
 */
import { createHash } from 'node:crypto';
import { ftsTokens } from '../../text/fts-tokens.js';

export type LexicalTable = 'names' | 'code';

/** The `tab` column's value for each table. */
export const TABLE_ID: Readonly<Record<LexicalTable, number>> = { names: 0, code: 1 };

/**
 * bm25()'s column weights, as the embedded store ranks (../embedded/search-reader.ts: `bm25(t, 4.0, 2.0,
 * 1.0, 0.5)` over name, signature, description and path; `bm25(t)` over code). FTS5 adds a
 * column's weight once per occurrence; with these weights (multiples of 1/2) every such sum
 * is exact in a double, so `w · tf` summed over columns is the same number.
 */
export const COLUMN_WEIGHTS: Readonly<Record<LexicalTable, readonly number[]>> = {
  names: [4, 2, 1, 0.5],
  code: [1],
};

/** Term frequency columns of the postings (tf_0 .. tf_3); a table with fewer leaves the rest 0 (empty when stored). */
export const TF_COLUMNS = 4;

/**
 * A term longer than this (UTF-8 bytes; FTS5 keeps up to 32,768) is stored by its SHA-256, as
 * `sha256:<hex>`: a B-tree entry holds at most about 2.7 kB. No term contains `:`, a separator
 * to the tokenizer, so such a key is never a real term.
 */
const MAX_TERM_BYTES = 1024;
const LONE_SURROGATE = /\p{Cs}/gu;

/**
 * A term as the tables key it. Well-formed first: a lone surrogate reaches SQLite, and
 * PostgreSQL, as U+FFFD.
 */
export function termKey(term: string): string {
  const t = term.replace(LONE_SURROGATE, '\uFFFD');
  if (Buffer.byteLength(t) <= MAX_TERM_BYTES) return t;
  return `sha256:${createHash('sha256').update(t).digest('hex')}`;
}

/** A text as a text column can hold it: NUL (a separator to the tokenizer, as a space is) becomes a space. */
export function storedText(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD').replaceAll('\0', ' ');
}

/** One element's row in one table, as FTS5 indexes it. */
export interface IndexedRow {
  /** Tokens per column. */
  sizes: number[];
  /** Term key -> occurrences per column (TF_COLUMNS long). */
  terms: Map<string, number[]>;
}

/** The terms and lengths of an element's columns (texts as stored: see storedText). */
export function indexRow(texts: readonly string[]): IndexedRow {
  const sizes: number[] = [];
  const terms = new Map<string, number[]>();
  texts.forEach((text, column) => {
    const tokens = ftsTokens(text);
    sizes.push(tokens.length);
    for (const token of tokens) {
      const key = termKey(token);
      let counts = terms.get(key);
      if (!counts) terms.set(key, (counts = new Array<number>(TF_COLUMNS).fill(0)));
      counts[column]!++;
    }
  });
  return { sizes, terms };
}

/**
 * A query term as FTS5 reads it between quotes: its tokens, keyed. One token is a term; none
 * matches nothing; several are a phrase (FTS5 then wants them in a row, in one column).
 */
export function queryTokens(term: string): string[] {
  return ftsTokens(term).map(termKey);
}

/**
 * How often a phrase occurs in each column: every position where its tokens follow each other
 * (overlaps count: `a a` occurs twice in `a a a`, as FTS5 counts it).
 */
export function phraseCounts(texts: readonly string[], phrase: readonly string[]): number[] {
  const counts = new Array<number>(TF_COLUMNS).fill(0);
  texts.forEach((text, column) => {
    const tokens = ftsTokens(text).map(termKey);
    for (let at = 0; at + phrase.length <= tokens.length; at++) {
      let k = 0;
      while (k < phrase.length && tokens[at + k] === phrase[k]) k++;
      if (k === phrase.length) counts[column]!++;
    }
  });
  return counts;
}
