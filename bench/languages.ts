/**
 * Analysis of every language on real code: the repositories of the semble
 * benchmark's development split (../shared/semble-benchmark/repos.json),
 * already checked out as `<repos>/<name>/` (see eval/semble.ts). No network.
 *
 *   npm run bench:languages -- --repos <dir>
 *   npm run bench:languages -- --repos <dir> --max-files 200      a quicker run
 *
 * Prints, per language:
 *  - throughput: bare tree-sitter parsing and AST analysis (parse and
 *    extraction) of the same texts, in memory, one thread, in the same run
 *    (each file in turn, the best of three runs of each), and their ratio;
 *    then elements/s of the analysis pool (reading included);
 *  - coverage: the share of each repository's files in its own language,
 *    under its benchmark root, that yield at least one element;
 * and the start-up of the worker pool (to its first result, for a
 * TypeScript file and then for the first file of another language, whose
 * grammar loads then), grammar load times, and the peak RSS with every
 * grammar loaded.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  AnalysisPool,
  analyzeText,
  detectLanguage,
  isCodeLanguage,
  isSkipped,
  screenContent,
  type Language,
} from '../src/internal.js';
import { grammarOf, loadedGrammars, parse } from '../src/analysis/ast/parsers.js';
import { LANGUAGES } from '../src/analysis/languages.js';
import { loadBenchmarkRepos } from '../src/eval/benchmark.js';
import type { Figures as AnalysisFigures } from './analysis.js';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { mib, ms, printTable } from '../eval/lib/stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

const { values } = parseArgs({
  options: {
    repos: { type: 'string' },
    benchmark: { type: 'string', default: join(ROOT, '..', 'shared', 'semble-benchmark') },
    'max-files': { type: 'string', default: '300' },
    threads: { type: 'string', default: '2' },
  },
});
if (!values.repos) {
  process.stderr.write(
    'usage: npm run bench:languages -- --repos <dir with the benchmark repositories> [--max-files N] [--threads N]\n',
  );
  process.exit(2);
}
const reposDir = values.repos;
const maxFiles = Number(values['max-files']);
const threads = Number(values.threads);

const SKIPPED_DIRS = new Set(['.git', 'node_modules', 'vendor', 'target', 'build', 'dist', '.build']);

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(at, entry.name));
      } else if (entry.isFile()) out.push(join(at, entry.name));
    }
  };
  walk(dir);
  return out.sort();
}

interface Source {
  path: string;
  text: string;
  repo: string;
  /** The repository's own language (what coverage is counted on). */
  ownLanguage: boolean;
}

// 1. Pool start-up, before anything is loaded in this process.
async function startUp(): Promise<{ firstTsMs: number; firstOtherMs: number; other: string }> {
  const tsFile = join(ROOT, 'src/analysis/element.ts');
  const goFile = join(ROOT, 'test/fixtures/analysis/languages/auth.go');
  let start = performance.now();
  const pool = new AnalysisPool({ threads });
  await Promise.all(Array.from({ length: threads }, () => pool.analyzeFile(tsFile)));
  const firstTsMs = performance.now() - start;
  start = performance.now();
  await Promise.all(Array.from({ length: threads }, () => pool.analyzeFile(goFile)));
  const firstOtherMs = performance.now() - start;
  await pool.close();
  return { firstTsMs, firstOtherMs, other: 'go' };
}
const startup = await startUp();
log(
  `pool of ${threads}: first TypeScript result after ${ms(startup.firstTsMs, 0)}; first Go result (its grammar loading) ${ms(startup.firstOtherMs, 0)} later`,
);

// 2. Grammar load times, each on first use.
const loadMs: Partial<Record<Language, number>> = {};
const rssBefore = process.memoryUsage().rss;
for (const language of LANGUAGES.filter(isCodeLanguage)) {
  const start = performance.now();
  grammarOf(language);
  loadMs[language] = performance.now() - start;
}
const rssGrammars = process.memoryUsage().rss - rssBefore;
log(
  `${loadedGrammars().length} grammars loaded in ${ms(
    Object.values(loadMs).reduce((a, b) => a + b, 0),
    0,
  )}, RSS +${mib(rssGrammars)}`,
);

// 3. The files of each language in the benchmark's repositories.
const repos = loadBenchmarkRepos(join(values.benchmark, 'repos.json'));
const byLanguage = new Map<Language, Source[]>();
const coverage: { repo: string; language: string; files: number; skipped: number; withElements: number }[] = [];
for (const repo of repos) {
  const root = join(reposDir, repo.name, repo.benchmarkRoot);
  let files: string[];
  try {
    files = listFiles(root);
  } catch {
    log(`${repo.name}: not found under ${reposDir}, left out`);
    continue;
  }
  const own = { repo: repo.name, language: repo.language, files: 0, skipped: 0, withElements: 0 };
  for (const path of files) {
    if (statSync(path).size > 1 << 20) continue;
    const screened = screenContent(readFileSync(path));
    const language = detectLanguage(path, screened.ok ? screened.text.slice(0, 4096) : '');
    if (!isCodeLanguage(language)) continue;
    const ownLanguage = language === repo.language;
    if (ownLanguage) own.files++;
    if (!screened.ok) {
      if (ownLanguage) own.skipped++;
      continue;
    }
    const list = byLanguage.get(language) ?? [];
    list.push({ path, text: screened.text, repo: repo.name, ownLanguage });
    byLanguage.set(language, list);
  }
  coverage.push(own);
}

// 4. Throughput per language, and coverage from the same analyses.
/** The analysis benchmark's figures for one corpus, by language, with the elements the pool made. */
interface Throughput extends Omit<AnalysisFigures, 'corpus' | 'threads'> {
  language: Language;
  poolElements: number;
}
const throughput: Throughput[] = [];
const elementCounts = new Map<string, number>();
for (const language of LANGUAGES.filter((l) => byLanguage.has(l))) {
  const all = byLanguage.get(language)!;
  // Coverage counts every file; timing uses at most --max-files of them, spread over the repositories.
  for (const source of all)
    if (source.ownLanguage) elementCounts.set(source.path, analyzeText(source.path, source.text).elements.length);
  const timed = all.length > maxFiles ? all.filter((_, i) => i % Math.ceil(all.length / maxFiles) === 0) : all;
  const bytes = timed.reduce((sum, s) => sum + Buffer.byteLength(s.text), 0);
  for (const { path, text } of timed.slice(0, 10)) analyzeText(path, text); // warm the JIT
  // Each file parsed bare and analysed in turn, the best of three runs of
  // each: what else runs on the machine then weighs on both alike.
  let parseMs = 0;
  let analysisMs = 0;
  let elements = 0;
  for (const { path, text } of timed) {
    let bestParse = Number.POSITIVE_INFINITY;
    let bestAnalysis = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      let start = performance.now();
      parse(language, text);
      bestParse = Math.min(bestParse, performance.now() - start);
      start = performance.now();
      const file = analyzeText(path, text);
      bestAnalysis = Math.min(bestAnalysis, performance.now() - start);
      if (run === 0) elements += file.elements.length;
    }
    parseMs += bestParse;
    analysisMs += bestAnalysis;
  }
  const pool = new AnalysisPool({ threads });
  await Promise.all(timed.slice(0, threads * 2).map((s) => pool.analyzeFile(s.path))); // start the workers, load the grammar
  const start = performance.now();
  const results = await Promise.all(timed.map((s) => pool.analyzeFile(s.path)));
  const poolMs = performance.now() - start;
  await pool.close();
  const poolElements = results.reduce((sum, r) => sum + (isSkipped(r) ? 0 : r.elements.length), 0);
  throughput.push({ language, files: timed.length, bytes, elements, parseMs, analysisMs, poolMs, poolElements });
  (globalThis as { gc?: () => void }).gc?.(); // trees hold native memory that V8 does not see: let them go between languages
  log(`${language}: ${timed.length} files, ratio ${(analysisMs / parseMs).toFixed(2)}`);
}
for (const entry of coverage) {
  const root = join(reposDir, entry.repo);
  entry.withElements = [...elementCounts.entries()].filter(
    ([path, count]) => count > 0 && !relative(root, path).startsWith('..'),
  ).length;
}
const peakRss = process.resourceUsage().maxRSS * 1024;

printTable(
  `AST analysis per language (${describeMachine()})`,
  [
    'language',
    'files / size',
    'bare parse, 1 thread',
    'analysis, 1 thread',
    'ratio',
    `elements/s (${threads} threads)`,
    'files/s',
    'grammar load',
  ],
  throughput.map((t) => [
    t.language,
    `${t.files} / ${mib(t.bytes)}`,
    ms(t.parseMs, 0),
    ms(t.analysisMs, 0),
    (t.analysisMs / t.parseMs).toFixed(2),
    `${Math.round(t.poolElements / (t.poolMs / 1000))}`,
    `${Math.round(t.files / (t.poolMs / 1000))}`,
    loadMs[t.language] === undefined ? '' : ms(loadMs[t.language]!, 0),
  ]),
);
printTable(
  "Coverage: each repository's files in its language (benchmark root) with at least one element",
  ['repository', 'language', 'files', 'skipped (size, generated, binary)', 'with elements', 'coverage'],
  coverage.map((c) => [
    c.repo,
    c.language,
    `${c.files}`,
    `${c.skipped}`,
    `${c.withElements}`,
    c.files ? `${((100 * c.withElements) / c.files).toFixed(1)}%` : '-',
  ]),
);
process.stdout.write(
  `\nPool of ${threads} threads: first result (TypeScript) after ${ms(startup.firstTsMs, 0)}; the first ${startup.other} file, whose grammar loads then, ${ms(startup.firstOtherMs, 0)} later.\n` +
    `All ${loadedGrammars().length} grammars loaded in ${ms(
      Object.values(loadMs).reduce((a, b) => a + b, 0),
      0,
    )} (RSS +${mib(rssGrammars)}); peak RSS of the run ${mib(peakRss)}.\n`,
);
writeFigures('languages', { threads, startup, loadMs, rssGrammars, peakRss, throughput, coverage });
