/**
 * Query latency of the Searcher, split into its stages, at about 10,000 and
 * about 100,000 indexed elements, with the built-in embedder (the query is
 * embedded in the measured time). Lexical-only search is measured in the
 * same run, on the same queries, for reference.
 *
 *   npm run bench:search              (add --quick for the 10k corpus only)
 *
 * Corpora (offline, real code): the TypeScript compiler's lib/ files, taken
 * in name order until they hold 10,000 elements; and 8 copies of the whole
 * lib/ (~110,000 elements), the larger corpus synthesised from real code.
 * Queries (100): the first words of real doc comments from the corpus (60),
 * element names (25) and two-word name fragments (15), picked evenly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Searcher, type SearchResponse, type SearchTimings } from '../src/index.js';
import { buildCorpus, libFiles, libSubset, pickQueries } from './lib/corpus.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { ms, percentile, printTable } from '../eval/lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const quick = process.argv.includes('--quick');
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const work = mkdtempSync(join(tmpdir(), 'ocvector-bench-search-'));
const QUERIES = 100;
const WARM_UP = 10;

interface Figures {
  corpus: string;
  elements: number;
  openMs: number;
  hybrid: SearchTimings[];
  lexical: SearchTimings[];
}

async function measure(corpus: string, dir: string): Promise<Figures> {
  const indexDir = join(dir, '.ocvector');
  const queries = pickQueries(indexDir, QUERIES);
  const opened = performance.now();
  const searcher = await Searcher.open({ indexDir });
  const openMs = performance.now() - opened;
  const run = async (mode: 'hybrid' | 'lexical') => {
    for (const query of queries.slice(0, WARM_UP)) await searcher.search(query, { mode });
    const timings: SearchTimings[] = [];
    let response: SearchResponse | undefined;
    for (const query of queries) {
      response = await searcher.search(query, { mode, k: 10 });
      timings.push(response.timings);
    }
    return { timings, elements: response!.elements };
  };
  try {
    const hybrid = await run('hybrid');
    const lexical = await run('lexical');
    return { corpus, elements: hybrid.elements, openMs, hybrid: hybrid.timings, lexical: lexical.timings };
  } finally {
    searcher.close();
  }
}

const STAGES: (keyof SearchTimings)[] = ['embedMs', 'vectorMs', 'lexicalMs', 'fusionMs', 'snippetMs', 'totalMs'];
const p = (timings: SearchTimings[], stage: keyof SearchTimings, q: number) =>
  percentile(
    timings.map((t) => t[stage]),
    q,
  );

try {
  const small = libSubset(10_000);
  const results: Figures[] = [];
  results.push(
    await measure('TypeScript lib/ subset', await buildCorpus(join(work, '10k'), { files: small, count: 1 }, log)),
  );
  if (!quick)
    results.push(
      await measure('TypeScript lib/ x 8', await buildCorpus(join(work, '100k'), { files: libFiles, count: 8 }, log)),
    );

  const header = [
    'corpus',
    'elements',
    'mode',
    'embed p50',
    'vector p50',
    'lexical p50',
    'fusion p50',
    'snippet p50',
    'total p50',
    'total p95',
  ];
  const rows: string[][] = [];
  // Where the tail comes from: each stage's own p95 (they need not come from the same queries).
  const tails: string[] = [];
  for (const figures of results) {
    for (const [mode, timings] of [
      ['hybrid', figures.hybrid],
      ['lexical only', figures.lexical],
    ] as const) {
      tails.push(
        `p95 by stage, ${figures.corpus}, ${mode}: ${STAGES.slice(0, 5)
          .map((stage) => `${stage.replace('Ms', '')} ${ms(p(timings, stage, 95))}`)
          .join(', ')}`,
      );
      rows.push([
        figures.corpus,
        figures.elements.toLocaleString('en-US'),
        mode,
        ...STAGES.slice(0, 5).map((stage) => ms(p(timings, stage, 50))),
        ms(p(timings, 'totalMs', 50)),
        ms(p(timings, 'totalMs', 95)),
      ]);
    }
  }
  printTable(`Query latency over ${QUERIES} queries, k = 10, built-in embedder (${describeMachine()})`, header, rows);
  const openRows = results.map((figures) => [
    figures.corpus,
    figures.elements.toLocaleString('en-US'),
    ms(figures.openMs, 0),
  ]);
  printTable('Opening the index (database + FAISS file), once per Searcher', ['corpus', 'elements', 'open'], openRows);
  const big = results.at(-1)!;
  const ratio = p(big.hybrid, 'totalMs', 95) / p(big.lexical, 'totalMs', 95);
  process.stdout.write(
    `\nhybrid p95 / lexical-only p95 at ${big.elements.toLocaleString('en-US')} elements: ${ratio.toFixed(2)}x (target: hybrid p95 < 25 ms at 100,000)\n`,
  );
  const stagesAt = (timings: SearchTimings[], q: number) =>
    Object.fromEntries(STAGES.map((stage) => [stage, p(timings, stage, q)]));
  const summary = (timings: SearchTimings[]) => ({
    p50: p(timings, 'totalMs', 50),
    p95: p(timings, 'totalMs', 95),
    stagesP50: stagesAt(timings, 50),
    stagesP95: stagesAt(timings, 95),
  });
  process.stdout.write(`${tails.join('\n')}\n`);
  writeFigures(
    'search',
    {
      queries: QUERIES,
      k: 10,
      corpora: results.map((figures) => ({
        corpus: figures.corpus,
        elements: figures.elements,
        openMs: figures.openMs,
        hybrid: summary(figures.hybrid),
        lexical: summary(figures.lexical),
      })),
    },
    quick,
  );
  if (!quick) {
    replaceGeneratedSection(
      join(root, PAGES.performance),
      'search',
      `${markdownTable(header, rows)}\n\nOpening the index: ${openRows.map((row) => `${row[2]} at ${row[1]} elements`).join(', ')} (once per Searcher; the CLI pays it on every call).\n\n${QUERIES} queries (60 doc-comment phrases, 25 names, 15 name fragments from the corpus), ${WARM_UP} warm-up queries first. ${describeMachine()}.`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
