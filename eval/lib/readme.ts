/**
 * Replaces a generated section of a Markdown page (the docs/ pages, eval/README.md),
 * between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->`, so the
 * figures on the page are the ones the last full run printed.
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** The pages that hold generated tables, relative to the repository root (docs/README.md lists them). */
export const PAGES = {
  /** bench: summary, native, gpu (bench:native -- --gpu), analysis, indexing, index-type, search, server (bench:server), agent. */
  performance: 'docs/performance.md',
  /** eval:semble: the public benchmark's tables. */
  retrievalQuality: 'docs/retrieval-quality.md',
  /** eval: the evaluation sets' table (also in eval/README.md). */
  evaluation: 'docs/evaluation.md',
} as const;

export function replaceGeneratedSection(pagePath: string, name: string, markdown: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const text = readFileSync(pagePath, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${pagePath} has no ${start} … ${end} section`);
  writeFileSync(pagePath, `${text.slice(0, from + start.length)}\n${markdown.trim()}\n${text.slice(to)}`);
}

export function markdownTable(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}
