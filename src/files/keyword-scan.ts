/**
 * Which of many keywords a text holds, found in one pass over it (an
 * Aho-Corasick automaton), case-insensitively. Secret rules are tried only
 * on a text that holds one of their keywords (secret-rules.ts); asking
 * `includes` once per keyword reads the whole text once per keyword, which
 * cost more than the rules themselves.
 */

/** Keywords are ASCII, so the automaton moves on ASCII; any other character starts it over, but two (see #present). */
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
  /** The next state, per state and character: `next[state + code]`, where a state is the offset of its row. */
  readonly #next: Int32Array;
  /** The first state where a keyword ends: those after it too, and none before. */
  readonly #firstEnding: number;
  /**
   * The keywords that end at each state from #firstEnding (its own and those of its suffixes), as indices into
   * #found: those of state `#firstEnding + k * ALPHABET` are from `#foundFrom[k]` to `#foundFrom[k + 1]`.
   */
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
    // Numbered anew, premultiplied by ALPHABET (a state is the offset of its row), with the states where a keyword
    // ends last: a step is one read of the table, and one comparison tells whether a keyword ends there.
    const order = [...goto.keys()].sort((a, b) => Number(ends[a]!.length > 0) - Number(ends[b]!.length > 0));
    const row = new Int32Array(goto.length);
    order.forEach((state, at) => {
      row[state] = at * ALPHABET;
    });
    this.#next = new Int32Array(next.length);
    order.forEach((state, at) => {
      for (let code = 0; code < ALPHABET; code++)
        this.#next[at * ALPHABET + code] = row[next[state * ALPHABET + code]!]!;
    });
    const firstEndingAt = order.findIndex((state) => ends[state]!.length > 0);
    this.#firstEnding = (firstEndingAt === -1 ? order.length : firstEndingAt) * ALPHABET;
    const ending = order.slice(this.#firstEnding / ALPHABET);
    this.#foundFrom = new Int32Array(ending.length + 1);
    ending.forEach((state, at) => {
      this.#foundFrom[at + 1] = this.#foundFrom[at]! + ends[state]!.length;
    });
    this.#found = Int32Array.from(ending.flatMap((state) => ends[state]!));
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
    const firstEnding = this.#firstEnding;
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < ALPHABET) state = next[state + code]!;
      // The two characters outside ASCII that lower-case to ASCII: "k", and "i" then a combining dot (which starts over).
      else if (code === KELVIN_SIGN) state = next[state + 107]!;
      else if (code === CAPITAL_I_WITH_DOT) {
        const to = next[state + 105]!;
        if (to >= firstEnding) this.#mark(to, present);
        state = 0;
      } else state = 0;
      if (state >= firstEnding) this.#mark(state, present);
    }
    return present;
  }

  /** Marks the keywords that end at `state` (one from #firstEnding) as present. */
  #mark(state: number, present: Uint8Array): void {
    const k = (state - this.#firstEnding) / ALPHABET;
    for (let at = this.#foundFrom[k]!; at < this.#foundFrom[k + 1]!; at++) present[this.#found[at]!] = 1;
  }
}
