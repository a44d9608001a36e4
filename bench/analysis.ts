/**
 * AST analysis throughput against bare tree-sitter parsing of the same files.
 *
 *   npm run bench:analysis
 *
 * Corpora, both available offline after `npm install`:
 *  - "compiler lib": node_modules/typescript/lib/*.d.ts and *.js (large real
 *    files, up to 9 MB; analysed with the size limit raised to 16 MiB);
 *  - "ordinary .ts": every .ts file under node_modules outside typescript/lib
 *    (type declarations and sources of the dependencies), plus this project's src/.
 * Single-thread parse and extraction are timed on texts already in memory;
 * the pool (all cores) includes reading the files.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AnalysisPool, analyzeText, detectLanguage, isSkipped } from '../src/internal.js';
import { parse } from '../src/analysis/ast/parsers.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { mib, ms, printTable } from '../eval/lib/stats.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

function listTs(dir: string, skip: (path: string) => boolean): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => join(dir, f))
    .filter((f) => /\.(ts|mts|cts|js)$/.test(f) && !skip(f) && statSync(f).isFile());
}

const compilerLib = readdirSync(join(root, 'node_modules/typescript/lib'))
  .filter((f) => /\.(d\.ts|js)$/.test(f))
  .map((f) => join(root, 'node_modules/typescript/lib', f));
const ordinary = [
  ...listTs(
    join(root, 'node_modules'),
    (f) => f.includes('/typescript/lib/') || !/\.(ts|mts|cts)$/.test(f) || statSync(f).size > 1 << 20,
  ),
  ...listTs(join(root, 'src'), () => false),
];

/** One corpus's analysis figures (also read by bench/suite.ts). */
export interface Figures {
  corpus: string;
  files: number;
  bytes: number;
  elements: number;
  parseMs: number;
  analysisMs: number;
  poolMs: number;
  threads: number;
}

async function measure(corpus: string, paths: string[], maxBytes: number): Promise<Figures> {
  const texts = paths.map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  const bytes = texts.reduce((sum, t) => sum + Buffer.byteLength(t.text), 0);
  log(`${corpus}: ${paths.length} files, ${mib(bytes)}`);

  // Warm up the grammars and the JIT on a few files, then time each phase.
  for (const { path, text } of texts.slice(0, 20)) analyzeText(path, text);
  let start = performance.now();
  for (const { path, text } of texts) parse(detectLanguage(path), text);
  const parseMs = performance.now() - start;

  start = performance.now();
  let elements = 0;
  for (const { path, text } of texts) elements += analyzeText(path, text).elements.length;
  const analysisMs = performance.now() - start;

  const pool = new AnalysisPool({ limits: { maxBytes } });
  await Promise.all(paths.slice(0, pool.threads * 4).map((p) => pool.analyzeFile(p))); // warm the workers
  start = performance.now();
  const results = await Promise.all(paths.map((p) => pool.analyzeFile(p)));
  const poolMs = performance.now() - start;
  const skipped = results.filter(isSkipped);
  if (skipped.length > 0)
    log(
      `  pool skipped ${skipped.length}: ${skipped
        .slice(0, 3)
        .map((s) => `${s.path} (${s.skipped})`)
        .join(', ')}`,
    );
  const threads = pool.threads;
  await pool.close();
  return { corpus, files: paths.length, bytes, elements, parseMs, analysisMs, poolMs, threads };
}

const figures = [
  await measure('compiler lib (typescript/lib)', compilerLib, 16 << 20),
  await measure('ordinary .ts (node_modules + src)', ordinary, 1 << 20),
];
const peakRss = process.resourceUsage().maxRSS * 1024;

const rows = figures.map((f) => [
  f.corpus,
  `${f.files} / ${mib(f.bytes)}`,
  ms(f.parseMs, 0),
  ms(f.analysisMs, 0),
  (f.analysisMs / f.parseMs).toFixed(2),
  `${Math.round(f.files / (f.poolMs / 1000))}`,
  `${(f.bytes / 2 ** 20 / (f.poolMs / 1000)).toFixed(1)}`,
  `${Math.round(f.elements / (f.poolMs / 1000))}`,
]);
const header = [
  'corpus',
  'files / size',
  'bare parse, 1 thread',
  'AST analysis, 1 thread',
  'ratio',
  `files/s (${figures[0]!.threads} threads)`,
  'MB/s',
  'elements/s',
];
printTable('AST analysis throughput', header, rows);
process.stdout.write(`peak RSS ${mib(peakRss)}; ${describeMachine()}\n`);

writeFigures('analysis', { peakRss, figures });
replaceGeneratedSection(
  join(root, PAGES.performance),
  'analysis',
  `${markdownTable(header, rows)}\n\nPeak RSS of the whole run: ${mib(peakRss)}. "ratio" is AST analysis (parse and extraction) over bare tree-sitter parsing of the same texts, in the same process.`,
);
log(`${PAGES.performance}: analysis section updated`);
