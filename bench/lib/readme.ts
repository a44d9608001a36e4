/**
 * Replaces a generated section of README.md, between
 * `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->`, so the figures
 * in the README are the ones the last full benchmark run printed.
 */
import { readFileSync, writeFileSync } from 'node:fs';

export function replaceReadmeSection(readmePath: string, name: string, markdown: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const text = readFileSync(readmePath, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} … ${end} section`);
  writeFileSync(readmePath, `${text.slice(0, from + start.length)}\n${markdown.trim()}\n${text.slice(to)}`);
}

export function markdownTable(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
