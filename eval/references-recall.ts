/**
 * References against grep -w (issue 29): for a sample of the words of a
 * repository's indexed files, every line `grep -w` finds must be among the
 * lines `oc-vector-search --refs` lists (recall), and the other way round
 * (precision). No network: the directories must already be there.
 *
 *   npm run eval:refs -- <dir> [<dir> ...] [--symbols 300] [--reuse]
 *
 * Built-in embedder, no model. Indexes go to --index-dir (default
 * eval/.cache/references/<name>).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Searcher } from '../src/internal.js';
import { isOccurrenceWord } from '../src/text/occurrences.js';
import { ROOT } from './lib/corpora.js';
import { indexCheckout, indexedFiles } from './lib/indexed-files.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'index-dir': { type: 'string', default: join(ROOT, 'eval', '.cache', 'references') },
    symbols: { type: 'string', default: '300' },
    reuse: { type: 'boolean' },
  },
});
const log = (message: string) => process.stderr.write(`eval:refs: ${message}\n`);
if (positionals.length === 0) {
  log('name one or more directories to check');
  process.exit(2);
}
const wanted = Number.parseInt(values.symbols!, 10);

for (const dir of positionals.map((path) => resolve(path))) {
  const name = basename(dir);
  const indexDir = await indexCheckout(dir, values['index-dir']!, values.reuse);
  const files = indexedFiles(indexDir);
  const symbols = sample(
    files.map((path) => readFileSync(join(dir, path), 'utf8')),
    wanted,
  );
  const searcher = await Searcher.open({ indexDir });
  let grepped = 0;
  let listed = 0;
  let found = 0;
  const misses: string[] = [];
  const times: number[] = [];
  try {
    for (const symbol of symbols) {
      const expected = new Set(grepW(dir, files, symbol));
      const refs = await searcher.references(symbol, { limit: 20_000, text: false });
      times.push(refs.timings.totalMs);
      const got = new Set(refs.files.flatMap((file) => file.sites.map((site) => `${file.path}:${site.line}`)));
      grepped += expected.size;
      listed += got.size;
      for (const site of expected)
        if (got.has(site)) found++;
        else if (misses.length < 10) misses.push(`${symbol} at ${site}`);
    }
  } finally {
    searcher.close();
  }
  times.sort((a, b) => a - b);
  log(
    `${name}: ${symbols.length} symbols, ${files.length} files; grep -w lines ${grepped}, listed ${listed}; ` +
      `recall ${pct(found, grepped)}, precision ${pct(found, listed)}; ` +
      `p50 ${times[Math.floor(times.length / 2)]!.toFixed(1)} ms, p95 ${times[Math.floor(times.length * 0.95)]!.toFixed(1)} ms`,
  );
  for (const miss of misses) log(`  missed: ${miss}`);
}

/** Every `step`-th distinct word (in sorted order) of the files, `count` of them: rare and common alike. */
function sample(texts: readonly string[], count: number): string[] {
  const words = new Set<string>();
  for (const text of texts) for (const word of text.match(/[\p{L}_][\p{L}\p{N}_]*/gu) ?? []) words.add(word);
  const all = [...words].filter(isOccurrenceWord).sort();
  const step = Math.max(1, Math.floor(all.length / count));
  return all.filter((_, i) => i % step === 0).slice(0, count);
}

/** `grep -nw` over the indexed files: path:line of each line holding the word. */
function grepW(dir: string, files: readonly string[], word: string): string[] {
  let out = '';
  try {
    out = execFileSync('grep', ['-nwF', '--', word, ...files], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
      env: { ...process.env, LC_ALL: 'C.UTF-8' },
    });
  } catch (error) {
    if ((error as { status?: number }).status !== 1) throw error; // 1: no line matched
  }
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const match = /^(.*?):(\d+):/.exec(files.length === 1 ? `${files[0]}:${line}` : line)!;
      return `${match[1]}:${match[2]}`;
    });
}

function pct(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(2)}%`;
}
