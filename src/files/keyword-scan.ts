/**
 * Which of many keywords a text holds, found in one pass over it (an
 * Aho-Corasick automaton), case-insensitively. Secret rules are tried only
 * on a text that holds one of their keywords (secret-rules.ts); asking
 * `includes` once per keyword reads the whole text once per keyword, which
 * cost more than the rules themselves.
 */

/** Keywords are ASCII, so the automaton moves on ASCII; any other character starts it over, but two. */
const ALPHABET = 128;
const KELVIN_SIGN = 0x212a;
const CAPITAL_I_WITH_DOT = 0x0130;

/** The keywords a text holds, by the scan of {@link KeywordScanner}. */
export interface FoundKeywords {
  /** Whether the text holds `keyword` (one of the scanner's), case-insensitively. Throws for a keyword not scanned for. */
  has(keyword: string): boolean;
}

export class KeywordScanner {
  readonly keywords: readonly string[];
  readonly #ids: ReadonlyMap<string, number>;
  /** The next state, per state and character: `next[state * ALPHABET + code]`. */
  readonly #next: Int32Array;
  /** The keywords that end at each state (its own and those of its suffixes), as indices into #found. */
  readonly #foundFrom: Int32Array;
  readonly #found: Int32Array;

  /** @param keywords lower-case ASCII words (a word given twice is scanned for once). */
  constructor(keywords: readonly string[]) {
    for (const keyword of keywords) {
      if (keyword.length === 0 || !/^[\x20-\x7e]+$/.test(keyword) || keyword !== keyword.toLowerCase()) {
        throw new TypeError(`secret rule keyword ${JSON.stringify(keyword)} is not lower-case printable ASCII`);
      }
    }
    const words = [...new Set(keywords)];
    this.keywords = words;
    this.#ids = new Map(words.map((keyword, id) => [keyword, id]));
    const goto: number[][] = [[]];
    const ends: number[][] = [[]];
    words.forEach((keyword, id) => {
      let state = 0;
      for (let i = 0; i < keyword.length; i++) {
        const code = keyword.charCodeAt(i);
        let to = goto[state]![code];
        if (to === undefined) {
          to = goto.length;
          goto[state]![code] = to;
          goto.push([]);
          ends.push([]);
        }
        state = to;
      }
      ends[state]!.push(id);
    });
    // Breadth first, so that a state's failure link is complete before its children's.
    const next = new Int32Array(goto.length * ALPHABET);
    const fail = new Int32Array(goto.length);
    const queue: number[] = [];
    for (let code = 0; code < ALPHABET; code++) {
      const to = goto[0]![code];
      if (to !== undefined) queue.push(to);
      next[code] = to ?? 0;
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      ends[state]!.push(...ends[fail[state]!]!);
      for (let code = 0; code < ALPHABET; code++) {
        const to = goto[state]![code];
        const fallback = next[fail[state]! * ALPHABET + code]!;
        if (to === undefined) next[state * ALPHABET + code] = fallback;
        else {
          fail[to] = fallback;
          next[state * ALPHABET + code] = to;
          queue.push(to);
        }
      }
    }
    // Upper-case letters move as their lower-case ones.
    for (let state = 0; state < goto.length; state++) {
      for (let code = 65; code <= 90; code++) next[state * ALPHABET + code] = next[state * ALPHABET + code + 32]!;
    }
    this.#next = next;
    this.#foundFrom = new Int32Array(goto.length + 1);
    ends.forEach((list, state) => {
      this.#foundFrom[state + 1] = this.#foundFrom[state]! + list.length;
    });
    this.#found = Int32Array.from(ends.flat());
  }

  /** Which keywords `text.toLowerCase()` includes: the same answer, without the lower-cased copy. */
  scan(text: string): FoundKeywords {
    const present = this.#present(text);
    const ids = this.#ids;
    return {
      has(keyword) {
        const id = ids.get(keyword);
        if (id === undefined) throw new RangeError(`keyword ${JSON.stringify(keyword)} was not scanned for`);
        return present[id] === 1;
      },
    };
  }

  #present(text: string): Uint8Array {
    const present = new Uint8Array(this.keywords.length);
    const next = this.#next;
    const foundFrom = this.#foundFrom;
    const found = this.#found;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= ALPHABET) {
        state = code === KELVIN_SIGN || code === CAPITAL_I_WITH_DOT ? this.#moveOnFolded(state, code, present) : 0;
        continue;
      }
      state = next[state * ALPHABET + code]!;
      const last = foundFrom[state + 1]!;
      for (let at = foundFrom[state]!; at < last; at++) present[found[at]!] = 1;
    }
    return present;
  }

  /** The two characters outside ASCII that lower-case to ASCII: "k", and "i" then a combining dot (which starts over). */
  #moveOnFolded(state: number, code: number, present: Uint8Array): number {
    const to = this.#next[state * ALPHABET + (code === KELVIN_SIGN ? 107 : 105)]!;
    for (let at = this.#foundFrom[to]!; at < this.#foundFrom[to + 1]!; at++) present[this.#found[at]!] = 1;
    return code === KELVIN_SIGN ? to : 0;
  }
}
