/**
 * The benchmark suite: runs every bench, then prints one table of the
 * headline figures and writes it into docs/performance.md (`bench:summary`).
 *
 *   npm run bench                        every bench, full sizes (about 15 minutes here)
 *   npm run bench -- --quick             smaller sizes, to check the suite; docs untouched
 *   npm run bench -- --only search,agent  some benches; the table takes the others' last figures
 *   npm run bench -- --summary           no runs: the table from the figures already in bench/out
 *
 * Each bench runs in its own process (as `npm run bench:NAME` would), writes
 * its full tables to bench/out/NAME.log and its figures to bench/out/NAME.json;
 * this file only gathers. Every ratio in the table was measured within one
 * bench run, against a baseline run in the same process on the same data.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Figures as AnalysisCorpusFigures } from './analysis.js';
import { OUT_DIR, readFigures, type Recorded } from './lib/out.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../eval/lib/readme.js';
import { mib, ms, printTable } from '../eval/lib/stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Bench {
  name: string;
  /** Node flags the bench needs (the native and analysis benches collect garbage between phases). */
  nodeFlags: string[];
  /** Whether it has a --quick mode; one without runs in full either way. */
  quick: boolean;
  /** Its rows of the summary table, from its recorded figures. */
  rows: (recorded: Recorded<never>) => string[][];
}

/** Ties a bench to the figures its rows read (each bench writes its own shape). */
function defineBench<T>(
  name: string,
  nodeFlags: string[],
  quick: boolean,
  rows: (recorded: Recorded<T>) => string[][],
): Bench {
  return { name, nodeFlags, quick, rows: rows as (recorded: Recorded<never>) => string[][] };
}

const BENCHES: Bench[] = [
  defineBench('native', ['--expose-gc'], true, nativeRows),
  defineBench('analysis', ['--expose-gc'], false, analysisRows),
  defineBench('indexing', [], true, indexingRows),
  defineBench('search', [], true, searchRows),
  defineBench('agent', [], true, agentRows),
];

const { values } = parseArgs({
  options: { quick: { type: 'boolean' }, only: { type: 'string' }, summary: { type: 'boolean' } },
});
const quick = values.quick ?? false;
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

function selected(): Bench[] {
  if (!values.only) return BENCHES;
  const names = values.only.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !BENCHES.some((bench) => bench.name === name));
  if (unknown.length > 0) {
    process.stderr.write(
      `bench: --only: unknown ${unknown.join(', ')}; choose from ${BENCHES.map((bench) => bench.name).join(', ')}\n`,
    );
    process.exit(2);
  }
  return BENCHES.filter((bench) => names.includes(bench.name));
}

/** Runs one bench to completion; its output goes to its log. Resolves with its exit code. */
function run(bench: Bench): Promise<number> {
  mkdirSync(OUT_DIR, { recursive: true });
  const logPath = join(OUT_DIR, `${bench.name}${quick ? '-quick' : ''}.log`);
  const out = createWriteStream(logPath);
  const args = [
    ...bench.nodeFlags,
    join(ROOT, 'node_modules/vite-node/vite-node.mjs'),
    join(ROOT, `bench/${bench.name}.ts`),
    '--',
    ...(quick && bench.quick ? ['--quick'] : []),
  ];
  const started = performance.now();
  log(`${bench.name}: running (log: ${logPath})`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('error', (error) => {
      out.end(`\n${error.message}\n`);
      resolve(1);
    });
    child.on('close', (code) => {
      out.end();
      const seconds = ((performance.now() - started) / 1000).toFixed(0);
      log(`${bench.name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${seconds} s`);
      resolve(code ?? 1);
    });
  });
}

// The parts of each bench's figures the table reads.
interface NativeFigures {
  sizes: { n: number; d: number; k: number; bigN: number; batch: number };
  comparisons: { name: string; raw: number; binding: number }[];
  lag: { bigBatch: { worstMs: number } };
}
interface AnalysisFigures {
  peakRss: number;
  figures: AnalysisCorpusFigures[];
}
interface IndexingFigures {
  full: {
    corpus: string;
    peakRss: number;
    summary: { files: { scanned: number }; elements: { total: number }; durationMs: number };
  }[];
  large: { elements: number; files: number; copies: number; scanMs: number; noChangeMs: number; oneFileMs: number };
}
interface Latency {
  p50: number;
  p95: number;
}
interface SearchFigures {
  queries: number;
  k: number;
  corpora: { corpus: string; elements: number; hybrid: Latency; lexical: Latency }[];
}
interface AgentFigures {
  corpus: string;
  elements: number;
  queries: number;
  k: number;
  p50: { searcher: number; tool: number; mcp: number; cli: number };
}

const HEADER = ['area', 'figure', 'value', 'against', 'ratio', 'corpus and sizes'];
const n = (value: number) => Math.round(value).toLocaleString('en-US');
const x = (value: number, digits = 2) => `${value.toFixed(digits)}x`;

function nativeRows({ figures: f }: Recorded<NativeFigures>): string[][] {
  const sizes = `${n(f.sizes.n)} × ${f.sizes.d} clustered vectors, k = ${f.sizes.k}`;
  return [
    ...f.comparisons.map((c) => [
      'FAISS binding',
      `${c.name} (p50)`,
      ms(c.binding, 3),
      `raw C++ ${ms(c.raw, 3)}`,
      x(c.binding / c.raw, 3),
      sizes,
    ]),
    [
      'FAISS binding',
      `worst event-loop lag during a ${f.sizes.batch}-query batch`,
      ms(f.lag.bigBatch.worstMs, 1),
      '',
      '',
      `${n(f.sizes.bigN)} × ${f.sizes.d}`,
    ],
  ];
}

function analysisRows({ figures: f }: Recorded<AnalysisFigures>): string[][] {
  return f.figures.map((c) => [
    'AST analysis',
    `throughput, ${c.threads} threads`,
    `${n(c.elements / (c.poolMs / 1000))} elements/s (${(c.bytes / 2 ** 20 / (c.poolMs / 1000)).toFixed(1)} MB/s)`,
    `bare tree-sitter parse ${ms(c.parseMs, 0)} (1 thread)`,
    `analysis ${x(c.analysisMs / c.parseMs)}`,
    `${c.corpus}: ${n(c.files)} files, ${mib(c.bytes)}, ${n(c.elements)} elements`,
  ]);
}

function indexingRows({ figures: f }: Recorded<IndexingFigures>): string[][] {
  const large = `compiler lib ×${f.large.copies}: ${n(f.large.elements)} elements, ${n(f.large.files)} files`;
  return [
    ...f.full.map((c) => [
      'Indexing',
      'full index (AST + built-in embedder)',
      `${ms(c.summary.durationMs, 0)}, ${n(c.summary.elements.total / (c.summary.durationMs / 1000))} elements/s`,
      `peak RSS ${mib(c.peakRss)}`,
      '',
      `${c.corpus}: ${n(c.summary.files.scanned)} files, ${n(c.summary.elements.total)} elements`,
    ]),
    [
      'Indexing',
      're-index, nothing changed',
      ms(f.large.noChangeMs, 0),
      `bare scan ${ms(f.large.scanMs, 0)}`,
      x(f.large.noChangeMs / f.large.scanMs),
      large,
    ],
    [
      'Indexing',
      're-index, one file changed',
      ms(f.large.oneFileMs, 0),
      `bare scan ${ms(f.large.scanMs, 0)}`,
      x(f.large.oneFileMs / f.large.scanMs),
      large,
    ],
  ];
}

function searchRows({ figures: f }: Recorded<SearchFigures>): string[][] {
  return f.corpora.flatMap((c) => {
    const sizes = `${c.corpus}: ${n(c.elements)} elements, ${f.queries} queries, k = ${f.k}`;
    return [
      [
        'Search',
        'hybrid query p50 / p95',
        `${ms(c.hybrid.p50)} / ${ms(c.hybrid.p95)}`,
        `lexical only ${ms(c.lexical.p50)} / ${ms(c.lexical.p95)}`,
        `p95 ${x(c.hybrid.p95 / c.lexical.p95)}`,
        sizes,
      ],
    ];
  });
}

function agentRows({ figures: f }: Recorded<AgentFigures>): string[][] {
  const sizes = `${f.corpus}: ${n(f.elements)} elements, ${f.queries} queries, k = ${f.k}`;
  const against = `Searcher ${ms(f.p50.searcher)}`;
  return [
    ['Agents', 'codebase_search tool call (p50)', ms(f.p50.tool), against, x(f.p50.tool / f.p50.searcher), sizes],
    ['Agents', 'MCP call over stdio (p50)', ms(f.p50.mcp), against, x(f.p50.mcp / f.p50.searcher), sizes],
    ['Agents', 'CLI, a process per query (p50)', ms(f.p50.cli), against, x(f.p50.cli / f.p50.searcher, 1), sizes],
  ];
}

/** The agent bench spawns the built CLIs: build them from the sources being measured. */
function buildCli(): Promise<number> {
  log('building dist/ (tsc -p tsconfig.build.json)');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
      { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const failed: string[] = [];
if (!values.summary) {
  for (const chosen of selected()) {
    if (chosen.name === 'agent' && (await buildCli()) !== 0) failed.push('build (for agent)');
    else if ((await run(chosen)) !== 0) failed.push(chosen.name);
  }
}

const rows: string[][] = [];
const sources: string[] = [];
const missing: string[] = [];
const machines = new Set<string>();
for (const { name, quick: hasQuick, rows: rowsOf } of BENCHES) {
  // A quick suite falls back to full figures only for a bench that has no quick mode.
  const recorded = readFigures<never>(name, quick && hasQuick);
  if (!recorded) {
    missing.push(name);
    continue;
  }
  rows.push(...rowsOf(recorded));
  sources.push(`${name} ${recorded.recordedAt.slice(0, 16).replace('T', ' ')} UTC`);
  machines.add(recorded.machine);
}

printTable(`ocvector benchmark suite${quick ? ' (quick sizes)' : ''}: ${[...machines].join('; ')}`, HEADER, rows);
process.stdout.write(`\nRecorded: ${sources.join(', ')}.\n`);
if (missing.length > 0)
  process.stdout.write(`No figures yet for: ${missing.join(', ')} (npm run bench -- --only ${missing.join(',')}).\n`);

if (!quick && failed.length === 0 && missing.length === 0) {
  replaceGeneratedSection(
    join(ROOT, PAGES.performance),
    'summary',
    `${markdownTable(HEADER, rows)}\n\nMachine: ${[...machines].join('; ')}. Recorded: ${sources.join(', ')}. Each ratio was measured within one bench run, against the baseline named beside it on the same data; the sections below have the full tables.`,
  );
  log(`${PAGES.performance}: summary section updated`);
}
if (failed.length > 0) {
  log(`failed: ${failed.join(', ')}; see their logs in bench/out`);
  process.exitCode = 1;
}
