import { describe, expect, it } from 'vitest';
import { LineStarts } from '../../src/files/line-starts.js';

describe('LineStarts', () => {
  it('finds the bytes of lines, multi-byte characters and carriage returns included', () => {
    const text = 'const α = 1;\r\nconst b = "日本";\n\nlast';
    const bytes = Buffer.from(text);
    const lines = new LineStarts(bytes);
    const slice = (first: number, last: number) => {
      const { start, end } = lines.range(first, last);
      return bytes.toString('utf8', start, end);
    };
    expect(slice(1, 1)).toBe('const α = 1;\r\n');
    expect(slice(2, 2)).toBe('const b = "日本";\n');
    expect(slice(2, 4)).toBe('const b = "日本";\n\nlast');
    expect(slice(4, 4)).toBe('last');
    // Lines past the end: empty, at the end.
    expect(lines.range(5, 9)).toEqual({ start: bytes.length, end: bytes.length });
    expect(lines.start(5)).toBe(bytes.length + 1);
  });

  it('counts an empty last line after a final newline, as a split on newlines does', () => {
    const bytes = Buffer.from('a\nb\n');
    const lines = new LineStarts(bytes);
    expect([1, 2, 3, 4].map((line) => lines.start(line))).toEqual([0, 2, 4, 5]);
    expect(lines.range(2, 2)).toEqual({ start: 2, end: 4 });
  });
});
