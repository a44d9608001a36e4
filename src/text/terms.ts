/**
 * Words of code, as a search engine should see them: identifiers split into
 * sub-words (getUserById -> get user by id, HTTPServer -> http server,
 * parse_json -> parse json), lower-cased and lightly stemmed, so that
 * `indexer`, `indexing` and `indexes` meet at `index`.
 */

const WORD = /[\p{L}_$][\p{L}\p{N}_$]*|\p{N}+/gu;
const PARTS = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[^\p{L}\p{N}_$]+/gu;

/** The identifier-ish words of a text, as written. */
export function words(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** Sub-words of one identifier, lower-cased: `XMLHttpRequest2` -> xml, http, request, 2. */
export function splitIdentifier(word: string): string[] {
  const parts: string[] = [];
  for (const piece of word.split(/[_$]+/)) {
    if (!piece) continue;
    for (const part of piece.match(PARTS) ?? []) parts.push(part.toLowerCase());
  }
  return parts;
}

/**
 * Stems already made: a search's ranking stems each candidate's words against
 * each query word (a long issue's hundreds of words), and both keep repeating.
 * Cleared whole when full: a simple bound, refilled by the next searches.
 */
const STEMS = new Map<string, string>();
const MAX_STEMS = 50_000;

/** A light suffix stripper (a small subset of Porter's), enough to join inflections. */
export function stem(word: string): string {
  let stemmed = STEMS.get(word);
  if (stemmed === undefined) {
    if (STEMS.size >= MAX_STEMS) STEMS.clear();
    STEMS.set(word, (stemmed = stemWord(word)));
  }
  return stemmed;
}

function stemWord(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('es') && /(x|ch|sh|ss|zz)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(ss|us|is|ys)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith('ed')) w = undouble(w.slice(0, -2));
  if (w.length > 5 && w.endsWith('er')) w = w.slice(0, -2);
  else if (w.length > 6 && w.endsWith('ation')) w = w.slice(0, -5);
  else if (w.length > 6 && w.endsWith('ion')) w = w.slice(0, -3);
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

function undouble(w: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w) ? w.slice(0, -1) : w;
}

/** All searchable terms of a text: sub-words, stemmed. */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) for (const part of splitIdentifier(word)) out.push(stem(part));
  return out;
}

/**
 * Text for the lexical index, where FTS5 splits on anything but letters
 * and digits: each identifier of several sub-words as one joined token
 * (`getUserById` and `get_user_by_id` both give `getuserbyid`) followed by
 * its sub-words, so that the whole name and each part find it. The query
 * side (search/query.ts) makes the same tokens.
 */
export function lexicalText(text: string): string {
  const out: string[] = [];
  for (const word of words(text)) {
    let tokens = lexicalTokens.get(word);
    if (tokens === undefined) {
      const parts = splitIdentifier(word);
      tokens = parts.length > 1 ? `${parts.join('')} ${parts.join(' ')}` : (parts[0] ?? '');
      // Bounded: generated code can hold any number of distinct names; real vocabularies are far smaller.
      if (lexicalTokens.size >= 100_000) lexicalTokens.clear();
      lexicalTokens.set(word, tokens);
    }
    if (tokens) out.push(tokens);
  }
  return out.join(' ');
}

/** A word's tokens for the lexical index, by the word as written: code repeats its names. */
const lexicalTokens = new Map<string, string>();
