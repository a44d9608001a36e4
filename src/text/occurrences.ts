/**
 * Where each word of a file occurs, by line: what "where is X used?" is
 * answered from. Words are delimited as `grep -w` delimits them (runs of
 * letters, digits and underscores), so that the references of a symbol are
 * every line grep -w finds, in code, comments and strings alike; case is
 * kept. A line is marked a call where the syntax tree says the word is
 * called there.
 *
 * Stored compactly, one string per (word, file): line numbers ascending,
 * each followed by `c` when a call (`12c,40,77`).
 */

/** Runs that name something: they start with a letter or an underscore (`2fa` names nothing). */
const NAME_START = /^[\p{L}_]/u;
/** Words of one character (`i`, `x`) are left out: every file holds them, and no one asks where `i` is used. */
export const MIN_OCCURRENCE_LENGTH = 2;

export interface OccurrenceSite {
  /** 1-based. */
  line: number;
  /** The syntax tree calls the word on this line. */
  call: boolean;
}

/** Calls by name: the 1-based lines where the syntax tree calls each name. */
export type CallLines = ReadonlyMap<string, ReadonlySet<number>>;

/** Whether a word could name something that has occurrences recorded. */
export function isOccurrenceWord(word: string): boolean {
  return word.length >= MIN_OCCURRENCE_LENGTH && NAME_START.test(word) && /^[\p{L}\p{N}_]+$/u.test(word);
}

/** Every word of `text` (MIN_OCCURRENCE_LENGTH or longer) and its lines, encoded. */
export function wordOccurrences(text: string, calls?: CallLines): Map<string, string> {
  // A scan by character code (a Unicode regex over every word cost as much as the rest of indexing a file).
  const lines = new Map<string, number[]>();
  let line = 1;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 10;
    if (isWordCode(code, text, i)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0) {
      if (i - start >= MIN_OCCURRENCE_LENGTH && !isDigitCode(text.charCodeAt(start))) {
        const word = text.slice(start, i);
        const list = lines.get(word);
        if (!list) lines.set(word, [line]);
        else if (list[list.length - 1] !== line) list.push(line);
      }
      start = -1;
    }
    if (code === 10) line++;
  }
  const encoded = new Map<string, string>();
  for (const [word, list] of lines) {
    const called = calls?.get(word);
    encoded.set(word, list.map((n) => (called?.has(n) ? `${n}c` : String(n))).join(','));
  }
  return encoded;
}

/** Letters, digits and underscore, as grep -w counts them (beyond ASCII: any letter or number). */
function isWordCode(code: number, text: string, i: number): boolean {
  if (code < 128)
    return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
  // A surrogate pair is one character: test it whole (from its first half; the second follows its verdict).
  if (code >= 0xdc00 && code <= 0xdfff) return i > 0 && isWordCode(text.charCodeAt(i - 1), text, i - 1);
  const char = code >= 0xd800 && code <= 0xdbff ? text.slice(i, i + 2) : text[i]!;
  return NON_ASCII_WORD.test(char);
}

function isDigitCode(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 128 && /\p{N}/u.test(String.fromCharCode(code)));
}

const NON_ASCII_WORD = /^[\p{L}\p{N}]/u;

/** The sites of an encoded line list. */
export function decodeSites(encoded: string): OccurrenceSite[] {
  if (!encoded) return [];
  return encoded.split(',').map((item) => {
    const call = item.endsWith('c');
    return { line: Number.parseInt(call ? item.slice(0, -1) : item, 10), call };
  });
}

/** Calls as (name, line) pairs, grouped by name. */
export function callLines(calls: readonly { name: string; line: number }[] | undefined): CallLines | undefined {
  if (!calls || calls.length === 0) return undefined;
  const byName = new Map<string, Set<number>>();
  for (const { name, line } of calls) {
    const set = byName.get(name);
    if (set) set.add(line);
    else byName.set(name, new Set([line]));
  }
  return byName;
}
