/**
 * Rows of positions in the source, from its line starts: JavaScript work
 * instead of a call into the tree for each start and end position, which
 * generic extraction would otherwise make twice per definition.
 */
export class Rows {
  readonly #starts: number[] = [0];

  constructor(readonly source: string) {
    for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) this.#starts.push(i + 1);
  }

  /** The 0-based row of a character index. */
  of(index: number): number {
    const starts = this.#starts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /**
   * The row of a span's last character that is not white space: some
   * grammars end a node after its line break (a `#define`, a Rust `///`) or
   * after the whitespace that follows it (Scala's definitions end at the
   * next line's indentation).
   */
  last(start: number, end: number): number {
    let last = end;
    while (last > start && isSpace(this.source.charCodeAt(last - 1))) last--;
    return this.of(Math.max(start, last - 1));
  }
}

function isSpace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9;
}
