import { describe, expect, it } from 'vitest';
import { formatCount, plural, ProgressBar } from '../../src/cli/terminal.js';

/** A terminal of the given width that keeps what is written to it. */
function fakeTerminal(columns: number) {
  const written: string[] = [];
  const stream = { isTTY: true, columns, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream;
  return { stream, lines: () => written.map((text) => text.replace('\r\u001b[K', '')) };
}

describe('terminal output', () => {
  it('counts in words: 1 request, 2 requests, 1,024 requests', () => {
    expect([plural(0, 'request'), plural(1, 'request'), plural(2, 'request'), plural(1024, 'request')]).toEqual([
      '0 requests',
      '1 request',
      '2 requests',
      '1,024 requests',
    ]);
  });

  it('groups thousands as en-US does, for any whole number, negative or huge, and for fractions', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 999_999, 1_000_000, 154_788, -1234, -999, 2 ** 53 - 1, 1234.5678, 0.5])
      expect(formatCount(n), String(n)).toBe(n.toLocaleString('en-US'));
  });

  it('shows no rate before the first item is done, then the rate', () => {
    const terminal = fakeTerminal(120);
    const bar = new ProgressBar(terminal.stream, 'files');
    bar.update(0, 2_000);
    expect(terminal.lines()[0]).toMatch(/^\[-+\] 0% 0\/2000 files$/);
    bar.update(2_000, 2_000);
    expect(terminal.lines()[1]).toMatch(/100% 2000\/2000 files +[\d.]+\/s +ETA/);
  });

  it('fits a narrow terminal', () => {
    const terminal = fakeTerminal(50);
    const bar = new ProgressBar(terminal.stream, 'files');
    bar.update(1, 2_000, 'src/some/long/path/to/a/file/being/read/now.ts');
    expect(terminal.lines()[0]!.length).toBe(49);
  });
});
