/**
 * The public code-search benchmark (MinishLab/semble's; its development
 * split is in ../shared/semble-benchmark/) over checked-out repositories,
 * scored with exactly its protocol (src/eval/benchmark.ts). No network: the
 * repositories must already be there, each at its pinned revision, as
 * `<repos>/<name>/` (`git --git-dir=<clone> archive <revision> | tar -x -C <repos>/<name>`).
 *
 *   npm run eval:semble -- --repos <dir>                      every repository, every mode
 *   npm run eval:semble -- --repos <dir> --repo gin --mode hybrid --verbose
 *   npm run eval:semble -- --repos <dir> --reuse              search the indexes of the last run (ranking changes only)
 *   npm run eval:semble -- --repos <dir> --readme             also write the tables into docs/retrieval-quality.md
 *   npm run eval:semble -- --repos <dir> --embedder ollama:<model> [--ollama-host <url>]   a model server's
 *                                                            embeddings (openai:<model> with --openai-base-url)
 *   npm run eval:semble -- --repos <dir> --model <name> [--ollama-host <url>]   with an Ollama analysis
 *                                                            model's descriptions (and a tally of its answers:
 *                                                            schema-valid on the first try, fallbacks, speed)
 *   npm run eval:semble -- --repos <dir> --postgres pglite    the same run through the PostgreSQL store too
 *                                                            (PGlite in this process, or a postgres:// URL),
 *                                                            each repository alone in a schema of its own,
 *                                                            and a table of the two stores' figures
 *
 * Built-in embedder unless --embedder names another, no analysis model unless --model names one. Indexes go to
 * --index-dir (default eval/.cache/semble/<name>), outside the checkouts.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Indexer, Searcher, type SearchMode } from '../src/index.js';
import {
  annotationsFile,
  loadBenchmarkQueries,
  loadBenchmarkRepos,
  ndcgAt10,
  scoreRepo,
  summarize,
  type BenchmarkRepo,
  type BenchmarkSummary,
  type RepoScore,
} from '../src/eval/benchmark.js';
import { describeMachine } from './lib/machine.js';
import { markdownTable, PAGES, replaceGeneratedSection } from './lib/readme.js';
import { percentile, printTable } from './lib/stats.js';
import { ROOT } from './lib/corpora.js';
import { loadPublished, publishedSummary, PUBLISHED_METHODS } from './lib/published.js';
import { isPostgresUrl, type PostgresChoice } from '../src/store/open.js';
import { startPostgres } from '../test/support/postgres.js';
import { ollamaOptions } from '../src/cli/environment.js';
import { embedderFromFlags } from './lib/embedder-flag.js';
import type { IndexEvent } from '../src/indexing/events.js';
import { ModelTally } from './lib/model-tally.js';

const { values } = parseArgs({
  options: {
    repos: { type: 'string' },
    benchmark: { type: 'string', default: join(ROOT, '..', 'shared', 'semble-benchmark') },
    annotations: { type: 'string' },
    'index-dir': { type: 'string', default: join(ROOT, 'eval', '.cache', 'semble') },
    repo: { type: 'string', multiple: true },
    mode: { type: 'string', multiple: true },
    reuse: { type: 'boolean' },
    verbose: { type: 'boolean' },
    json: { type: 'string' },
    readme: { type: 'boolean' },
    postgres: { type: 'string' },
    embedder: { type: 'string', default: 'builtin' },
    'ollama-host': { type: 'string' },
    'openai-base-url': { type: 'string' },
    model: { type: 'string' },
  },
});

const log = (message: string) => process.stderr.write(`eval:semble: ${message}\n`);
const fail = (message: string): never => {
  log(message);
  process.exit(2);
};

const reposDir = values.repos
  ? resolve(values.repos)
  : fail('--repos <dir> is required: the checked-out repositories, one folder per name');
const benchmarkDir = resolve(values.benchmark!);
const annotationsDir = resolve(values.annotations ?? join(benchmarkDir, 'annotations'));
const MODES: SearchMode[] = (values.mode as SearchMode[] | undefined) ?? ['lexical', 'vector', 'hybrid'];
for (const mode of MODES)
  if (!['lexical', 'vector', 'hybrid'].includes(mode)) fail(`--mode must be lexical, vector or hybrid, not ${mode}`);

const { choice: embedderChoice, options: embedderOptions } = embedderFromFlags(values, fail);

const all = loadBenchmarkRepos(join(benchmarkDir, 'repos.json'));
const wanted = values.repo ? all.filter((repo) => values.repo!.includes(repo.name)) : all;
if (values.repo)
  for (const name of values.repo)
    if (!all.some((repo) => repo.name === name)) fail(`no repository ${name} in repos.json`);
const runnable = wanted.filter((repo) => {
  if (!existsSync(annotationsFile(annotationsDir, repo.name))) return false;
  if (existsSync(join(reposDir, repo.name, repo.benchmarkRoot))) return true;
  log(`${repo.name}: not checked out at ${join(reposDir, repo.name)}; left out`);
  return false;
});
if (runnable.length === 0) fail(`no repository with annotations in ${annotationsDir} is checked out under ${reposDir}`);

interface QueryDetail {
  repo: string;
  query: string;
  category: string;
  ndcg10: Partial<Record<SearchMode, number>>;
  top: Partial<Record<SearchMode, string[]>>;
  targets: string[];
}

const scores: Record<SearchMode, RepoScore[]> = { lexical: [], vector: [], hybrid: [] };
const details: QueryDetail[] = [];
const timing = { indexMs: 0, searchMs: [] as number[], chunks: 0 };
const modelTally = new ModelTally();

// The PostgreSQL store, when asked for: a server's URL, or PGlite started here.
const pglite = values.postgres === 'pglite' ? await startPostgres() : undefined;
const postgresUrl = pglite?.url ?? values.postgres;
if (postgresUrl !== undefined && !isPostgresUrl(postgresUrl))
  fail(`--postgres takes pglite or a postgres:// URL, not ${postgresUrl}`);
/** The PostgreSQL store's figures, and its timings, beside the embedded store's. */
const shared = {
  scores: { lexical: [], vector: [], hybrid: [] } as Record<SearchMode, RepoScore[]>,
  searchMs: [] as number[],
  indexMs: 0,
  embeddedIndexMs: 0,
};

for (const repo of runnable) {
  const indexDir = join(resolve(values['index-dir']!), repo.name);
  const embeddedIndexMs = await indexRepo(repo, { indexDir });
  const queries = loadBenchmarkQueries(annotationsFile(annotationsDir, repo.name));
  const perMode = await searchRepo(repo, { indexDir }, queries, true);
  const line: string[] = [];
  for (const mode of MODES) {
    const score = scoreRepo(repo, perMode[mode]);
    scores[mode].push(score);
    line.push(`${mode} ${score.ndcg10.toFixed(3)}`);
  }
  if (postgresUrl) {
    const store: PostgresChoice = { url: postgresUrl, schema: schemaOf(repo.name) };
    shared.embeddedIndexMs += embeddedIndexMs;
    shared.indexMs += await indexRepo(repo, { indexDir, store });
    const onPostgres = await searchRepo(repo, { store }, queries, false);
    for (const mode of MODES) {
      const score = scoreRepo(repo, onPostgres[mode]);
      shared.scores[mode].push(score);
      line.push(`postgres ${mode} ${score.ndcg10.toFixed(3)}`);
    }
  }
  log(`${repo.name} (${repo.language}, ${queries.length} queries): ${line.join(', ')}`);
}
await pglite?.stop();

/** A repository's schema in the PostgreSQL store: each repository alone, as each has its own embedded index. */
function schemaOf(name: string): string {
  return `semble_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
}

/** Every query of a repository in every mode, through one store; `record` keeps the details and the latency. */
async function searchRepo(
  repo: BenchmarkRepo,
  where: { indexDir: string } | { store: PostgresChoice },
  queries: ReturnType<typeof loadBenchmarkQueries>,
  record: boolean,
): Promise<Record<SearchMode, { category: string; ndcg10: number }[]>> {
  const searcher = await Searcher.open({ ...where, embedderOptions });
  try {
    const perMode: Record<SearchMode, { category: string; ndcg10: number }[]> = { lexical: [], vector: [], hybrid: [] };
    for (const entry of queries) {
      const detail: QueryDetail = {
        repo: repo.name,
        query: entry.query,
        category: entry.category,
        ndcg10: {},
        top: {},
        targets: entry.targets.map((t) => (t.startLine ? `${t.path}:${t.startLine}-${t.endLine}` : t.path)),
      };
      for (const mode of MODES) {
        const started = performance.now();
        const response = await searcher.search(entry.query, { k: 10, mode, snippet: false });
        const took = performance.now() - started;
        if (mode === 'hybrid') {
          (record ? timing.searchMs : shared.searchMs).push(took);
        }
        const value = ndcgAt10(response.results, entry.targets);
        perMode[mode].push({ category: entry.category, ndcg10: value });
        detail.ndcg10[mode] = value;
        detail.top[mode] = response.results.map((r) => `${r.path}:${r.startLine}-${r.endLine}`);
      }
      if (!record) continue;
      details.push(detail);
      if (values.verbose && (detail.ndcg10.hybrid ?? 1) < 1) {
        log(
          `  [${entry.category}] ${(detail.ndcg10.hybrid ?? 0).toFixed(3)} ${JSON.stringify(entry.query)}\n      targets: ${detail.targets.join(', ')}\n      top: ${(detail.top.hybrid ?? []).slice(0, 5).join(', ')}`,
        );
      }
    }
    return perMode;
  } finally {
    searcher.close();
  }
}

/** Indexes a repository into the embedded index (or, with `store`, the PostgreSQL store); returns how long it took. */
async function indexRepo(
  repo: BenchmarkRepo,
  { indexDir, store }: { indexDir: string; store?: PostgresChoice },
): Promise<number> {
  if (!store) {
    if (values.reuse && existsSync(join(indexDir, 'index.db'))) return 0;
    rmSync(indexDir, { recursive: true, force: true });
    mkdirSync(indexDir, { recursive: true });
  }
  const root = join(reposDir, repo.name, repo.benchmarkRoot);
  const started = performance.now();
  const summary = await new Indexer({
    path: root,
    root,
    indexDir,
    ...(store ? { store, rebuild: !values.reuse } : {}),
    embedder: embedderChoice,
    embedderOptions,
    llm: values.model ? { ...ollamaOptions(values['ollama-host']), model: values.model } : false,
    ...(values.model
      ? { onEvent: (event: IndexEvent) => event.type === 'analysis' && modelTally.add(event.event) }
      : {}),
  }).run();
  const took = performance.now() - started;
  if (!store) {
    timing.indexMs += took;
    timing.chunks += summary.elements.total;
  }
  log(
    `${repo.name}: ${summary.files.scanned} files, ${summary.elements.total} elements indexed ${store ? 'into PostgreSQL ' : ''}in ${(summary.durationMs / 1000).toFixed(1)} s`,
  );
  return took;
}

// --- report -------------------------------------------------------------------
const f = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(3));
const names = runnable.map((repo) => repo.name);
const published = loadPublished(join(benchmarkDir, 'published-figures.json'));
const ours: [string, BenchmarkSummary][] = MODES.map((mode) => [`ocvector ${mode}`, summarize(scores[mode])]);
const theirs: [string, BenchmarkSummary][] = PUBLISHED_METHODS.flatMap(({ key, label }) => {
  const summary = publishedSummary(published, key, names);
  return summary ? [[label, summary] as [string, BenchmarkSummary]] : [];
});
const categories = [...new Set(ours.flatMap(([, s]) => Object.keys(s.byCategory)))].sort();
const languages = [...new Set(runnable.map((repo) => repo.language))].sort();

const overallHeader = ['method', 'NDCG@10', ...categories, 'repositories'];
const overallRows = [...ours, ...theirs].map(([label, s]) => [
  label,
  f(s.ndcg10),
  ...categories.map((c) => f(s.byCategory[c])),
  String(s.repos),
]);
const languageHeader = ['method', ...languages];
const languageRows = [...ours, ...theirs].map(([label, s]) => [
  label,
  ...languages.map((language) => f(s.byLanguage[language])),
]);
const repoHeader = [
  'repository',
  'language',
  'queries',
  ...MODES.map((m) => `ocvector ${m}`),
  ...PUBLISHED_METHODS.slice(0, 3).map((m) => m.label),
];
const repoRows = runnable.map((repo, i) => [
  repo.name,
  repo.language,
  String(scores[MODES[0]!][i]!.queries),
  ...MODES.map((mode) => f(scores[mode][i]!.ndcg10)),
  ...PUBLISHED_METHODS.slice(0, 3).map((m) => f(published.methods[m.key]?.repos[repo.name]?.ndcg10)),
]);

printTable(
  `Code-search benchmark, development split: NDCG@10, mean over ${runnable.length} repositories`,
  overallHeader,
  overallRows,
);
printTable('By language (mean over its repositories)', languageHeader, languageRows);
printTable('By repository', repoHeader, repoRows);
const searchMs = [...timing.searchMs].sort((a, b) => a - b);
const at = (p: number) => searchMs[Math.min(searchMs.length - 1, Math.floor((p / 100) * searchMs.length))] ?? 0;
process.stdout.write(
  `\nHybrid query latency: p50 ${at(50).toFixed(1)} ms, p95 ${at(95).toFixed(1)} ms over ${searchMs.length} queries (no snippets).${timing.indexMs > 0 ? ` Indexing: ${(timing.indexMs / 1000).toFixed(1)} s for ${timing.chunks.toLocaleString('en-US')} elements.` : ''}\n`,
);

if (values.model) process.stdout.write(`\n${modelTally.report(values.model)}\n`);

if (postgresUrl) {
  const embedded = summarize(scores.hybrid).ndcg10;
  const onPostgres = summarize(shared.scores.hybrid).ndcg10;
  const parityRows = MODES.map((mode) => {
    const a = summarize(scores[mode]).ndcg10;
    const b = summarize(shared.scores[mode]).ndcg10;
    return [mode, f(a), f(b), (b - a >= 0 ? '+' : '') + (b - a).toFixed(4)];
  });
  printTable(
    `The two stores, same run: NDCG@10 over ${runnable.length} repositories (${pglite ? 'PGlite' : 'PostgreSQL server'})`,
    ['mode', 'embedded', 'postgres', 'Δ'],
    parityRows,
  );
  const pct = (list: number[], p: number) => (list.length > 0 ? percentile(list, p) : 0);
  process.stdout.write(
    `\nHybrid latency, embedded p50 ${pct(timing.searchMs, 50).toFixed(1)} / p95 ${pct(timing.searchMs, 95).toFixed(1)} ms; postgres p50 ${pct(shared.searchMs, 50).toFixed(1)} / p95 ${pct(shared.searchMs, 95).toFixed(1)} ms. ` +
      `Indexing: embedded ${(shared.embeddedIndexMs / 1000).toFixed(1)} s, postgres ${(shared.indexMs / 1000).toFixed(1)} s. |Δ| hybrid ${Math.abs(onPostgres - embedded).toFixed(4)}.\n`,
  );
}

if (values.json)
  writeFileSync(
    values.json,
    `${JSON.stringify({ summary: Object.fromEntries(ours), repos: scores, details, ...(values.model ? { model: modelTally.summary() } : {}) }, null, 2)}\n`,
  );
if (values.readme) {
  const section = [
    markdownTable(overallHeader, overallRows),
    markdownTable(languageHeader, languageRows),
    `ocvector: ${values.embedder === 'builtin' ? 'built-in embedder' : `embedder ${values.embedder}`}, no analysis model, k = 10, each repository's own index. Published figures: the same repositories, from semble's result files. ${describeMachine()}.`,
  ].join('\n\n');
  replaceGeneratedSection(join(ROOT, PAGES.retrievalQuality), 'semble', section);
}
