/**
 * Identifier findability on real repositories (eval/lib/unique-identifiers.ts):
 * for each indexed file, an identifier no other file holds, searched alone.
 * No network: each directory must already be there (for the public
 * benchmark's repositories, `git archive` of the pinned revision).
 *
 *   npm run eval:findability -- <dir> [<dir> ...]            index each, then search
 *   npm run eval:findability -- <dir> --reuse                search the index of the last run
 *   npm run eval:findability -- <dir> --verbose              list the misses
 *
 * Built-in embedder, no model. Indexes go to --index-dir (default
 * eval/.cache/findability/<name>), outside the directories.
 */
import { writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './lib/corpora.js';
import { indexCheckout } from './lib/indexed-files.js';
import { checkIndexFindability, type FindabilitySummary } from './lib/unique-identifiers.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'index-dir': { type: 'string', default: join(ROOT, 'eval', '.cache', 'findability') },
    reuse: { type: 'boolean' },
    verbose: { type: 'boolean' },
    json: { type: 'string' },
  },
});
const log = (message: string) => process.stderr.write(`eval:findability: ${message}\n`);
if (positionals.length === 0) {
  log('name one or more directories to check');
  process.exit(2);
}

const summaries: Record<string, Omit<FindabilitySummary, 'results'> & { misses: string[] }> = {};
for (const dir of positionals.map((path) => resolve(path))) {
  const name = basename(dir);
  const indexDir = await indexCheckout(dir, values['index-dir']!, values.reuse);
  const summary = await checkIndexFindability(dir, indexDir);
  const misses = summary.results
    .filter((result) => result.rank === 0 || (result.defined && result.rank !== 1))
    .map(
      (result) =>
        `${result.path} ${result.identifier} rank ${result.rank || '>10'}: ${result.top.slice(0, 3).join(', ')}`,
    );
  const { results: _, ...counts } = summary;
  summaries[name] = { ...counts, misses };
  log(
    `${name}: ${summary.inTop10}/${summary.cases} in the top 10 (${pct(summary.inTop10, summary.cases)}), ` +
      `defining file first ${summary.definedFirst}/${summary.defined} (${pct(summary.definedFirst, summary.defined)})`,
  );
  if (values.verbose) for (const miss of misses) log(`  ${miss}`);
}
if (values.json) writeFileSync(values.json, `${JSON.stringify(summaries, null, 2)}\n`);

function pct(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;
}
