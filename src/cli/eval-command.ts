/**
 * oc-vector-eval <set...>: how well the index answers an evaluation set,
 * in each search mode: hit@1/5/10 and MRR, at file level and (where the
 * set names elements) at element level. Per-query details with --json.
 */
import { basename, resolve } from 'node:path';
import { Command } from 'commander';
import { evaluate, EVAL_MODES, type EvalReport } from '../eval/evaluate.js';
import type { RetrievalScores } from '../eval/metrics.js';
import { loadEvalSet } from '../eval/set.js';
import { findIndex } from '../search/find-index.js';
import { Searcher, type SearchMode } from '../search/searcher.js';
import { StoreError } from '../store/errors.js';
import { EXIT } from './exit.js';
import { configure, parseList, runCommand } from './program.js';
import { colorEnabled, makeStyle, ProgressBar, type Style } from './terminal.js';
import { OPENAI_BASE_URL_HELP } from './embedder-choice.js';
import { ollamaOptions, openAIOptions } from './environment.js';

interface EvalCliOptions {
  db?: string;
  mode: string;
  json?: boolean;
  quiet?: boolean;
  ollamaHost?: string;
  openaiBaseUrl?: string;
}

const PROGRAM = 'oc-vector-eval';

export async function evalMain(argv: readonly string[]): Promise<number> {
  const program = configure(
    new Command(PROGRAM),
    'Score the index on evaluation sets: hit@1, hit@5, hit@10 and MRR for each search mode.',
  )
    .argument('<sets...>', 'evaluation sets: JSON or JSONL files of { id, query, expected_paths, expected_elements? }')
    .option('--db <dir>', 'index directory (default: the nearest .ocvector at or above the current directory)')
    .option('--mode <modes>', `modes to score, comma-separated (${EVAL_MODES.join(', ')})`, EVAL_MODES.join(','))
    .option('--ollama-host <url>', 'Ollama server, for an index built with an Ollama embedding model')
    .option('--openai-base-url <url>', `${OPENAI_BASE_URL_HELP}, for an index built with one`)
    .option('--json', "the scores and every query's ranks as JSON on stdout")
    .option('-q, --quiet', 'no progress on stderr');

  return runCommand<EvalCliOptions>(program, argv, (args, options) => runEval(args[0] as string[], options));
}

async function runEval(files: string[], options: EvalCliOptions): Promise<number> {
  const modes = parseList(options.mode, '--mode', EVAL_MODES) as SearchMode[];
  // Every set is read and checked before the index is opened: a typo fails at once.
  const sets = files.map((file) => ({ file: resolve(file), queries: loadEvalSet(resolve(file)) }));

  const found = options.db ? { indexDir: resolve(options.db) } : findIndex(process.cwd());
  if (!found) throw new StoreError(`no index at or above ${process.cwd()}: run oc-vector-index first`, 'NOT_FOUND');
  const searcher = await Searcher.open({
    indexDir: found.indexDir,
    embedderOptions: { ollama: ollamaOptions(options.ollamaHost), openai: openAIOptions(options.openaiBaseUrl) },
  });
  const reports: (EvalReport & { set: string })[] = [];
  try {
    for (const { file, queries } of sets) {
      const bar = options.quiet || options.json ? undefined : new ProgressBar(process.stderr, 'searches');
      const report = await evaluate(searcher, queries, {
        modes,
        onProgress: (done, total) => bar?.update(done, total, basename(file)),
      });
      bar?.done();
      reports.push({ set: file, ...report });
    }
  } finally {
    searcher.close();
  }

  if (options.json) {
    process.stdout.write(`${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
    return EXIT.OK;
  }
  const style = makeStyle(colorEnabled(process.stdout));
  process.stdout.write(reports.map((report) => renderReport(report, style)).join('\n'));
  return EXIT.OK;
}

function renderReport(report: EvalReport & { set: string }, style: Style): string {
  const lines = [
    `${style.bold(basename(report.set))}: ${report.queries} queries on ${report.root} (${report.elements.toLocaleString('en-US')} elements, ${report.embedder})`,
  ];
  const withElements = Object.values(report.modes).some((scores) => scores.element);
  const header = [
    'mode',
    'file hit@1',
    'hit@5',
    'hit@10',
    'MRR',
    ...(withElements ? ['element hit@1', 'hit@5', 'hit@10', 'MRR'] : []),
  ];
  const rows = Object.entries(report.modes).map(([mode, scores]) => [
    mode,
    ...cells(scores.file),
    ...(withElements ? (scores.element ? cells(scores.element) : ['–', '–', '–', '–']) : []),
  ]);
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    `  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')}`;
  lines.push(style.dim(line(header)), ...rows.map(line));
  for (const [mode, scores] of Object.entries(report.modes))
    if (scores.fallback) lines.push(`  ${style.warn('note:')} ${mode} was answered lexically: ${scores.fallback}`);
  return `${lines.join('\n')}\n`;
}

function cells(scores: RetrievalScores): string[] {
  return [scores.hitAt1, scores.hitAt5, scores.hitAt10, scores.mrr].map((value) => value.toFixed(3));
}
