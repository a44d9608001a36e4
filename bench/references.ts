/**
 * References (oc-vector-search --refs) at scale: latency of a symbol with
 * about 100, 1,000 and 10,000 occurrence lines in a ~100,000-element index
 * (8 copies of the TypeScript compiler's lib/), and what the occurrences
 * table adds to the index's size.
 *
 *   npm run bench:refs              (add --quick for the 10k corpus only)
 *
 * Target (issue 29): p95 <= 20 ms for 1,000 occurrences at 100,000
 * elements; the index at most 30% larger.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IndexStore, Searcher } from '../src/internal.js';
// An internal bench: the occurrences table's size is read from the embedded store's SQLite (dbstat).
import { prepared } from '../src/store/embedded/sqlite.js';
import { buildCorpus, libFiles, libSubset } from './lib/corpus.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { mib, ms, percentile, printTable } from '../eval/lib/stats.js';

const quick = process.argv.includes('--quick');
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-refs-'));
const RUNS = 200;
const WARM_UP = 20;
const TARGETS = [100, 1_000, 10_000];

interface Figures {
  corpus: string;
  elements: number;
  indexBytes: number;
  occurrenceBytes: number;
  symbols: { symbol: string; lines: number; files: number; p50: number; p95: number }[];
}

async function measure(corpus: string, root: string): Promise<Figures> {
  const indexDir = join(root, '.ocvector');
  const store = IndexStore.open(indexDir, { readonly: true });
  let counts: { word: string; n: number }[];
  let occurrenceBytes: number;
  const elements = store.elementCount;
  try {
    const db = store.database;
    occurrenceBytes = prepared<[], { bytes: number }>(
      db,
      "SELECT sum(pgsize) AS bytes FROM dbstat WHERE name IN ('occurrences', 'occurrences_by_file')",
    ).get()!.bytes;
    // Lines per word: one more than the commas of each file's list.
    counts = prepared<[], { word: string; n: number }>(
      db,
      "SELECT word, sum(length(lines) - length(replace(lines, ',', '')) + 1) AS n FROM occurrences GROUP BY word",
    ).all();
  } finally {
    store.close();
  }
  const searcher = await Searcher.open({ indexDir });
  try {
    const symbols: Figures['symbols'] = [];
    for (const target of TARGETS) {
      const { word } = counts
        .filter((entry) => /^[A-Za-z_]\w{3,}$/.test(entry.word))
        .reduce((best, entry) => (Math.abs(entry.n - target) < Math.abs(best.n - target) ? entry : best));
      const times: number[] = [];
      let response = await searcher.references(word, { limit: 20_000 });
      for (let i = 0; i < WARM_UP + RUNS; i++) {
        const started = performance.now();
        response = await searcher.references(word, { limit: 20_000 });
        if (i >= WARM_UP) times.push(performance.now() - started);
      }
      symbols.push({
        symbol: word,
        lines: response.total,
        files: response.totalFiles,
        p50: percentile(times, 50),
        p95: percentile(times, 95),
      });
    }
    return { corpus, elements, indexBytes: size(indexDir), occurrenceBytes, symbols };
  } finally {
    searcher.close();
  }
}

function size(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

try {
  const results: Figures[] = [];
  results.push(
    await measure(
      'TypeScript lib/ subset',
      await buildCorpus(join(work, '10k'), { files: libSubset(10_000), count: 1 }, log),
    ),
  );
  if (!quick)
    results.push(
      await measure('TypeScript lib/ x 8', await buildCorpus(join(work, '100k'), { files: libFiles, count: 8 }, log)),
    );
  const rows = results.flatMap((figures) =>
    figures.symbols.map((symbol) => [
      figures.corpus,
      figures.elements.toLocaleString('en-US'),
      symbol.symbol,
      symbol.lines.toLocaleString('en-US'),
      symbol.files.toLocaleString('en-US'),
      ms(symbol.p50),
      ms(symbol.p95),
    ]),
  );
  printTable(
    `References latency over ${RUNS} runs, line text read (${describeMachine()})`,
    ['corpus', 'elements', 'symbol', 'lines', 'files', 'p50', 'p95'],
    rows,
  );
  printTable(
    'Index size and the occurrences table',
    ['corpus', 'index', 'occurrences', 'growth over the index without them'],
    results.map((figures) => [
      figures.corpus,
      mib(figures.indexBytes),
      mib(figures.occurrenceBytes),
      `${((100 * figures.occurrenceBytes) / (figures.indexBytes - figures.occurrenceBytes)).toFixed(1)}%`,
    ]),
  );
  writeFigures('references', results, quick);
} finally {
  rmSync(work, { recursive: true, force: true });
}
