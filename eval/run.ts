/**
 * The retrieval evaluation, end to end: for each set under eval/sets, lay
 * out its corpus with the queries' own doc comments held out, index it
 * (tree-sitter and the built-in embedder: no model, as on any machine),
 * and score lexical-only, vector-only and hybrid search. The commit sets
 * (change-location questions, eval/lib/commit-eval.ts) are laid out from
 * their repositories' git directories instead, and scored at file level
 * against a whole-file BM25; a set whose git directory is absent is left
 * out with one line.
 *
 *   npm run eval                       every set; updates the tables in docs/evaluation.md and eval/README.md
 *   npm run eval -- --set ocvector     one set (tables left alone)
 *   npm run eval -- --commits          the commit sets only (their tables updated when all ran)
 *   npm run eval -- --json             the reports, with every query's ranks
 *   npm run eval -- --weights '{"prose":{"lexical":1,"vector":0.7}}'   try other fusion weights
 *   npm run eval -- --commits --k 100  the commit sets' searches asking for 100 results (default 10; tables left alone)
 *   npm run eval -- --commits-corpora <dir>   the commit sets' git directories (default: $OCVECTOR_COMMIT_CORPORA, ../corpora/commits)
 *   npm run eval -- --commits --half development   the commit sets of one half (development or held-out; tables left alone)
 *   npm run eval -- --commits --keep-indexes <dir>   keep each commit set's snapshot and index there, and search
 *                                      them again on the next run (ranking changes only; remove <dir> after
 *                                      a change to analysis or indexing)
 *   npm run eval -- --embedder ollama:<model> [--ollama-host <url>]   a model server's embeddings (openai:<model>
 *                                      with --openai-base-url); tables left alone
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  evaluate,
  Indexer,
  loadEvalSet,
  Searcher,
  type EvalReport,
  type FusionWeights,
  type QueryKind,
  type RetrievalScores,
} from '../src/internal.js';
import { describeMachine } from './lib/machine.js';
import { markdownTable, PAGES, replaceGeneratedSection } from './lib/readme.js';
import { printTable } from './lib/stats.js';
import { commitCorporaDir, commitSetSource, gitDirOf } from './lib/commit-corpora.js';
import { runCommitSet, SEARCH_K, type CommitSetReport } from './lib/commit-eval.js';
import { resolveCommit } from './lib/commit-history.js';
import {
  COMMIT_HITS_HEADER,
  COMMIT_MRR_HEADER,
  commitHalfSummaries,
  commitHitRows,
  commitMrrRows,
  commitSources,
  commitVerdicts,
  halfOf,
} from './lib/commit-report.js';
import { CORPORA, prepareCorpus, ROOT, SETS_DIR } from './lib/corpora.js';
import { embedderFlag } from './lib/embedder-flag.js';

const { values } = parseArgs({
  options: {
    set: { type: 'string', multiple: true },
    json: { type: 'boolean' },
    weights: { type: 'string' },
    commits: { type: 'boolean' },
    k: { type: 'string' },
    'commits-corpora': { type: 'string' },
    'keep-indexes': { type: 'string' },
    half: { type: 'string' },
    embedder: { type: 'string', default: 'builtin' },
    'ollama-host': { type: 'string' },
    'openai-base-url': { type: 'string' },
  },
});
const embedderLabel = values.embedder === 'builtin' ? 'built-in embedder' : `embedder ${values.embedder}`;
/** `--embedder ollama:<model>` (or openai:<model>): a model server's embeddings instead of the built-in ones. */
const embedder = embedderFlag(values.embedder!, {
  ollamaHost: values['ollama-host'],
  openaiBaseUrl: values['openai-base-url'],
});
const allNames = values.set ?? readdirSync(SETS_DIR).sort();
if (values.half !== undefined && values.half !== 'development' && values.half !== 'held-out')
  throw new Error(`--half must be development or held-out, not ${values.half}`);
const commitNames = allNames.filter(
  (name) => commitSetSource(name) !== undefined && (values.half === undefined || halfOf(name) === values.half),
);
const names = values.commits ? [] : allNames.filter((name) => commitSetSource(name) === undefined);
const commitsDir = commitCorporaDir(values['commits-corpora']);
const commitK = values.k === undefined ? SEARCH_K : Number(values.k);
if (!Number.isInteger(commitK) || commitK < 1 || commitK > 100)
  throw new Error(`--k must be 1 to 100, not ${values.k}`);
const weights = values.weights ? (JSON.parse(values.weights) as Partial<Record<QueryKind, FusionWeights>>) : undefined;
const log = (message: string) => process.stderr.write(`eval: ${message}\n`);

export interface SetResult {
  name: string;
  title: string;
  report: EvalReport;
  heldOut: number;
  missing: string[];
}

async function runSet(name: string): Promise<SetResult> {
  const corpus = CORPORA[name];
  if (!corpus) throw new Error(`no corpus for the set ${name}; known: ${Object.keys(CORPORA).join(', ')}`);
  const queries = loadEvalSet(join(SETS_DIR, name, 'queries.jsonl'));
  const root = mkdtempSync(join(tmpdir(), `ocvector-eval-${name}-`));
  try {
    const prepared = prepareCorpus(corpus, queries, root);
    if (prepared.missing.length > 0)
      log(
        `${name}: ${prepared.missing.length} expected elements are no longer in the corpus (renew the set with npm run eval:build-sets): ${prepared.missing.slice(0, 5).join('; ')}`,
      );
    const summary = await new Indexer({
      path: root,
      embedder: embedder.choice,
      embedderOptions: embedder.options,
      llm: false,
      limits: { maxBytes: 16 << 20 },
    }).run();
    const laidOut = prepared.commit
      ? ` (as of commit ${prepared.commit.slice(0, 7)})`
      : corpus.gitPath
        ? ' (live files: the commit the set was built from is not here)'
        : '';
    log(
      `${name}: ${summary.elements.total} elements indexed in ${(summary.durationMs / 1000).toFixed(1)} s${laidOut}, ${prepared.heldOut} doc comments held out`,
    );
    const searcher = await Searcher.open({
      indexDir: summary.indexDir,
      embedderOptions: embedder.options,
      ...(weights ? { weights } : {}),
    });
    try {
      const report = await evaluate(searcher, queries);
      return { name, title: corpus.title, report, heldOut: prepared.heldOut, missing: prepared.missing };
    } finally {
      searcher.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const f = (value: number) => value.toFixed(3);
const HEADER = [
  'set',
  'queries',
  'elements',
  'mode',
  'file hit@1',
  'file hit@10',
  'file MRR',
  'element hit@1',
  'element hit@10',
  'element MRR',
];

function rows(result: SetResult): string[][] {
  return Object.entries(result.report.modes).map(([mode, scores]) => {
    const element: RetrievalScores | undefined = scores.element;
    return [
      result.name,
      String(result.report.queries),
      result.report.elements.toLocaleString('en-US'),
      mode,
      f(scores.file.hitAt1),
      f(scores.file.hitAt10),
      f(scores.file.mrr),
      element ? f(element.hitAt1) : '–',
      element ? f(element.hitAt10) : '–',
      element ? f(element.mrr) : '–',
    ];
  });
}

/** Hybrid against lexical-only, on the element MRR where the set has elements. */
function verdict(result: SetResult): string {
  const { hybrid, lexical } = result.report.modes;
  const pick = (scores: NonNullable<typeof hybrid>) => scores.element?.mrr ?? scores.file.mrr;
  const h = pick(hybrid!);
  const l = pick(lexical!);
  return `${result.name}: hybrid MRR ${f(h)} vs lexical-only ${f(l)} (${h > l ? `+${(((h - l) / l) * 100).toFixed(1)}%` : 'NOT better'})`;
}

/** A commit set, or undefined (said in one line) when its git directory or pinned commit is not here. */
async function runCommits(name: string): Promise<CommitSetReport | undefined> {
  const source = commitSetSource(name)!;
  const gitDir = gitDirOf(commitsDir, source.corpus);
  try {
    if (!gitDir) throw new Error(`no git directory ${join(commitsDir, source.corpus)}`);
    resolveCommit(gitDir, source.commit);
  } catch (error) {
    log(
      `${name}: left out, ${(error as Error).message.split('\n')[0]} (git clone --bare ${source.repository} there, or --commits-corpora / OCVECTOR_COMMIT_CORPORA; pinned at ${source.commit.slice(0, 12)})`,
    );
    return undefined;
  }
  const report = await runCommitSet({
    name,
    source,
    gitDir,
    k: commitK,
    embedder,
    ...(values['keep-indexes'] ? { keep: resolve(values['keep-indexes']) } : {}),
    ...(weights ? { weights } : {}),
    log,
  });
  if (report.missing.length > 0)
    log(
      `${name}: ${report.missing.length} expected files are not in the index: ${report.missing.slice(0, 5).join(', ')}`,
    );
  return report;
}

const results: SetResult[] = [];
for (const name of names) results.push(await runSet(name));
const commitResults: CommitSetReport[] = [];
for (const name of commitNames) {
  const report = await runCommits(name);
  if (report) commitResults.push(report);
}

const table = results.flatMap(rows);
const commitTables = [
  { header: COMMIT_MRR_HEADER, rows: commitMrrRows(commitResults) },
  { header: COMMIT_HITS_HEADER, rows: commitHitRows(commitResults) },
];
if (values.json) {
  process.stdout.write(`${JSON.stringify({ sets: results, commits: commitResults }, null, 2)}\n`);
} else {
  if (results.length > 0) {
    printTable(`Retrieval evaluation (${embedderLabel}, no analysis model, k = 10)`, HEADER, table);
    process.stdout.write(`\n${results.map(verdict).join('\n')}\n`);
  }
  if (commitResults.length > 0) {
    printTable(
      `Change-location questions: file MRR (first 10 files, ${commitK} results a search)`,
      commitTables[0]!.header,
      commitTables[0]!.rows,
    );
    printTable('The same: file hit@1 / hit@10', commitTables[1]!.header, commitTables[1]!.rows);
    process.stdout.write(`\n${commitVerdicts(commitResults).join('\n')}\n`);
    process.stdout.write(`\n${commitHalfSummaries(commitResults).join('\n')}\n`);
  }
}

// The pages' tables are the default's record: a run with another embedder or other weights prints only.
if (!values.set && !values.half && !weights && embedder.choice === 'builtin') {
  const pages = [PAGES.evaluation, 'eval/README.md'];
  if (!values.commits) {
    const section = `${markdownTable(HEADER, table)}\n\n${results.map(verdict).join('. ')}.\n\nSets: ${results.map((r) => `${r.name} (${r.title}, ${r.heldOut} doc comments held out)`).join('; ')}. Built-in embedder, no analysis model, k = 10. ${describeMachine()}.`;
    for (const page of pages) replaceGeneratedSection(join(ROOT, page), 'eval', section);
  }
  // Only a run that had every commit set rewrites their tables: a checkout without the git directories keeps them.
  if (commitResults.length === commitNames.length && commitNames.length > 0 && commitK === SEARCH_K) {
    const machine = `Built-in embedder, no analysis model, ${SEARCH_K} results a search. ${describeMachine()}.`;
    const commits = [
      'File MRR over the first 10 files:',
      markdownTable(commitTables[0]!.header, commitTables[0]!.rows),
      'File hit@1 / hit@10:',
      markdownTable(commitTables[1]!.header, commitTables[1]!.rows),
      `${commitHalfSummaries(commitResults).join('. ')}.`,
      `${commitVerdicts(commitResults).join('. ')}.`,
      `Snapshots: ${commitSources(commitResults)}. ${machine}`,
    ].join('\n\n');
    for (const page of pages) replaceGeneratedSection(join(ROOT, page), 'commits', commits);
  }
}
