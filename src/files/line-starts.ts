/**
 * Where a file's lines start, in bytes, found lazily with memchr
 * (Buffer.indexOf): line 90,000 of a 9 MB file costs a scan of the bytes
 * before it, never a decode. The indexer records each element's byte range
 * with it, so that a search reads only those bytes of a large file; a
 * search uses it to cut lines out of the bytes it read.
 */
export class LineStarts {
  readonly #bytes: Uint8Array;
  /** Byte offset where each line starts, as far as scanned so far; `length + 1` once past the last line. */
  readonly #starts: number[] = [0];

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  /**
   * Where 1-based `line` starts: `length + 1` for a line past the last. A
   * final newline ends the last line, and an empty line follows it (starting
   * at `length`), as a text split on newlines has.
   */
  start(line: number): number {
    const bytes = this.#bytes;
    const starts = this.#starts;
    while (starts.length < line && starts.at(-1)! <= bytes.length) {
      const newline = bytes.indexOf(10, starts.at(-1)!);
      starts.push(newline < 0 ? bytes.length + 1 : newline + 1);
    }
    return starts[line - 1] ?? bytes.length + 1;
  }

  /** The bytes of lines first..last (1-based, inclusive), newline of the last included: [start, end). */
  range(first: number, last: number): { start: number; end: number } {
    const length = this.#bytes.length;
    return { start: Math.min(this.start(first), length), end: Math.min(this.start(last + 1), length) };
  }
}
