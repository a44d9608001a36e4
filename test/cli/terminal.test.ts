import { describe, expect, it } from 'vitest';
import { plural, ProgressBar } from '../../src/cli/terminal.js';

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
