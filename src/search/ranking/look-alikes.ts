/**
 * Where a request's words meet, as its files spell them. BM25 matches a
 * word through the lexical index's stemmer, which joins words that only
 * look alike: an adverb of the request finds every C++ field declared with
 * a library type of the same stem (issue 57), and a header of such fields
 * then holds the request's rarest word more often than the function the
 * request describes. The words an element spells in its own name,
 * signature and description (its doc comment) are read here as written,
 * with the project's light stemmer (text/terms.ts: a plural is its
 * singular, an adjective is not its adverb), so that a file that holds the
 * request's rare word only as a look-alike can be told from one that
 * spells it.
 */
import { ftsTokens } from '../../text/fts-tokens.js';
import { stem, terms } from '../../text/terms.js';
import type { CandidateRow } from './features.js';

/** A word and a longer one that is the same word with a suffix (`atomic`, `atomically`): the stemmer's look-alikes. */
const LOOK_ALIKE_SUFFIX = 4;
const LOOK_ALIKE_MIN_LENGTH = 4;

/**
 * Two terms the lexical index's stemmer joins (FTS5's porter: `connect` and
 * `connection`), one of them the other with a short suffix. Only such a pair
 * lent one word's BM25 to the other: `null` is not `nullable` to BM25, nor
 * `proc` `procsub`, so a file that spells `null` lost nothing to it.
 */
function looksAlike(a: string, b: string): boolean {
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return (
    shorter !== longer &&
    shorter.length >= LOOK_ALIKE_MIN_LENGTH &&
    longer.startsWith(shorter) &&
    longer.length - shorter.length <= LOOK_ALIKE_SUFFIX &&
    indexStem(shorter) === indexStem(longer)
  );
}

/** A term as the lexical index stems it: its first FTS5 token (fts-tokens.ts keeps each word's term). */
function indexStem(term: string): string {
  return ftsTokens(term)[0] ?? term;
}

/**
 * The terms of an element's name, signature and description, kept for the
 * next searches: a long issue's candidates are thousands of elements, the
 * same from one search to the next, and stemming them was most of a search's
 * time. Cleared whole when full.
 */
const TERMS_OF = new Map<string, ReadonlySet<string>>();
const MAX_CACHED_ROWS = 20_000;

function spelledTerms(row: CandidateRow): ReadonlySet<string> {
  const text = `${row.name} ${row.signature ?? ''} ${row.description ?? ''}`;
  let found = TERMS_OF.get(text);
  if (!found) {
    if (TERMS_OF.size >= MAX_CACHED_ROWS) TERMS_OF.clear();
    TERMS_OF.set(text, (found = new Set(terms(text))));
  }
  return found;
}

/**
 * The wanted words found from a term in a few lookups, not by comparing
 * each term with each word (a long issue wants hundreds of words, and its
 * candidates spell thousands of terms): the words it equals, and those it
 * looks like, by the prefixes the two would share (looksAlike).
 */
function lookAlikeIndex(wanted: readonly string[]): { exact: ReadonlySet<string>; similar(term: string): string[] } {
  const exact = new Set(wanted);
  // A wanted word longer than a term is found under each of its own prefixes the term could be.
  const byPrefix = new Map<string, string[]>();
  for (const word of wanted)
    for (let cut = 1; cut <= LOOK_ALIKE_SUFFIX; cut++) {
      const prefix = word.slice(0, word.length - cut);
      if (prefix.length < LOOK_ALIKE_MIN_LENGTH) break;
      const list = byPrefix.get(prefix);
      if (list) list.push(word);
      else byPrefix.set(prefix, [word]);
    }
  return {
    exact,
    similar(term) {
      const found = [...(byPrefix.get(term) ?? [])];
      // A wanted word shorter than the term is one of the term's prefixes.
      for (let cut = 1; cut <= LOOK_ALIKE_SUFFIX; cut++) {
        const prefix = term.slice(0, term.length - cut);
        if (prefix.length < LOOK_ALIKE_MIN_LENGTH) break;
        if (exact.has(prefix)) found.push(prefix);
      }
      return found.filter((word) => looksAlike(term, word));
    },
  };
}

/**
 * For each file whose candidates hold some of `keywords` only in a
 * look-alike form (`atomic` in a signature, for `atomically`), and spell
 * them nowhere as written: the share of the request's words that it does
 * not hold that way, each word weighed by its rarity among the candidates'
 * files (as BM25 weighs a term: the rare word is the one that carried the
 * file). Files absent from the map hold no look-alike alone (1). A word the
 * candidates' names and doc comments do not spell at all is no evidence
 * either way: the code, which BM25 read and these rows do not hold, may.
 */
export function lookAlikeShareByFile(keywords: readonly string[], rows: Iterable<CandidateRow>): Map<number, number> {
  const wanted = [...new Set(keywords.map(stem))];
  const exact = new Map<number, Set<string>>();
  const alike = new Map<number, Set<string>>();
  const entry = (map: Map<number, Set<string>>, file: number) => {
    let set = map.get(file);
    if (!set) map.set(file, (set = new Set()));
    return set;
  };
  const alikeOf = lookAlikeIndex(wanted);
  for (const row of rows) {
    const spelled = entry(exact, row.fileId);
    const similar = entry(alike, row.fileId);
    for (const term of spelledTerms(row)) {
      if (alikeOf.exact.has(term)) spelled.add(term);
      for (const word of alikeOf.similar(term)) similar.add(word);
    }
  }
  const holding = new Map<string, number>();
  for (const [file, spelled] of exact)
    for (const word of new Set([...spelled, ...alike.get(file)!])) holding.set(word, (holding.get(word) ?? 0) + 1);
  const weight = (word: string) => Math.log(1 + exact.size / (1 + (holding.get(word) ?? 0)));
  const total = wanted.reduce((sum, word) => sum + weight(word), 0);
  const shares = new Map<number, number>();
  if (total <= 0) return shares;
  for (const [file, similar] of alike) {
    const spelled = exact.get(file)!;
    let lost = 0;
    for (const word of similar) if (!spelled.has(word)) lost += weight(word);
    if (lost > 0) shares.set(file, 1 - lost / total);
  }
  return shares;
}
