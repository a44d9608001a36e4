/**
 * The retrieval evaluation, end to end: for each set under eval/sets, lay
 * out its corpus with the queries' own doc comments held out, index it
 * (tree-sitter and the built-in embedder: no model, as on any machine),
 * and score lexical-only, vector-only and hybrid search.
 *
 *   npm run eval                       every set; updates the tables in docs/evaluation.md and eval/README.md
 *   npm run eval -- --set ocvector     one set (tables left alone)
 *   npm run eval -- --json             the reports, with every query's ranks
 *   npm run eval -- --weights '{"prose":{"lexical":1,"vector":0.7}}'   try other fusion weights
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { describeMachine } from '../bench/lib/machine.js';
import { markdownTable, PAGES, replaceGeneratedSection } from '../bench/lib/readme.js';
import { printTable } from '../bench/lib/stats.js';
import { CORPORA, prepareCorpus, ROOT, SETS_DIR } from './lib/corpora.js';

const { values } = parseArgs({
  options: { set: { type: 'string', multiple: true }, json: { type: 'boolean' }, weights: { type: 'string' } },
});
const names = values.set ?? readdirSync(SETS_DIR).sort();
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
      embedder: 'builtin',
      llm: false,
      limits: { maxBytes: 16 << 20 },
    }).run();
    log(
      `${name}: ${summary.elements.total} elements indexed in ${(summary.durationMs / 1000).toFixed(1)} s, ${prepared.heldOut} doc comments held out`,
    );
    const searcher = await Searcher.open({ indexDir: summary.indexDir, ...(weights ? { weights } : {}) });
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

const results: SetResult[] = [];
for (const name of names) results.push(await runSet(name));

const table = results.flatMap(rows);
if (values.json) {
  process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
} else {
  printTable('Retrieval evaluation (built-in embedder, no analysis model, k = 10)', HEADER, table);
  process.stdout.write(`\n${results.map(verdict).join('\n')}\n`);
}

if (!values.set && !weights) {
  const section = `${markdownTable(HEADER, table)}\n\n${results.map(verdict).join('. ')}.\n\nSets: ${results.map((r) => `${r.name} (${r.title}, ${r.heldOut} doc comments held out)`).join('; ')}. Built-in embedder, no analysis model, k = 10. ${describeMachine()}.`;
  for (const page of [PAGES.evaluation, 'eval/README.md']) replaceGeneratedSection(join(ROOT, page), 'eval', section);
}
