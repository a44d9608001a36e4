/**
 * Search latency of two builds of ocvector over the same indexes, in one
 * process, alternating query by query: a refactor or a ranking change is
 * timed against the build before it under the same load, which two separate
 * runs on a shared machine cannot do. Each build also scores the public
 * benchmark's queries (NDCG@10), so a change that should not move the
 * ranking is seen not to.
 *
 *   npm run bench:builds -- --baseline <other checkout>/dist --index-dir <dir>
 *   npm run bench:builds -- --baseline <other checkout>/dist --set <queries.jsonl> --index <dir> [--set … --index …]
 *
 * --baseline: the other build's dist/ (`npm run build:ts` there). --index-dir:
 * indexes both builds can read, one per repository, as eval:semble leaves them
 * (`npm run eval:semble -- --repos <dir> --index-dir <dir>`), scored by NDCG@10.
 * Or --set and --index in pairs: an evaluation set's queries (eval/sets/*) against
 * an index of its corpus (for the commit sets, those `npm run eval -- --commits
 * --keep-indexes <dir>` keeps), scored by the file MRR of the first expected file.
 * --baseline-index-dir: the baseline's own indexes of the same repositories, where the two
 * builds cannot read one index (a schema change between them: `eval:semble` run in each
 * checkout, each with its own --index-dir).
 * --rounds: how many times the queries are run (default 3; the first is also the
 * warm-up; 1 times each query once, which no cache of a repeated query can help).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as current from '../src/index.js';
import { annotationsFile, loadBenchmarkQueries, loadBenchmarkRepos, ndcgAt10 } from '../src/eval/benchmark.js';
import { loadEvalSet } from '../src/eval/set.js';
import { ROOT } from '../eval/lib/corpora.js';
import { describeMachine } from '../eval/lib/machine.js';
import { ms, percentile, printTable } from '../eval/lib/stats.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    'index-dir': { type: 'string' },
    'baseline-index-dir': { type: 'string' },
    benchmark: { type: 'string', default: join(ROOT, '..', 'shared', 'semble-benchmark') },
    rounds: { type: 'string', default: '3' },
    mode: { type: 'string', default: 'hybrid' },
    set: { type: 'string', multiple: true },
    index: { type: 'string', multiple: true },
  },
});
const fail = (message: string): never => {
  process.stderr.write(`bench:builds: ${message}\n`);
  process.exit(2);
};
const baselineDir = resolve(values.baseline ?? fail('--baseline <dist directory of the other build> is required'));
const rounds = Number(values.rounds);
if (!Number.isInteger(rounds) || rounds < 1) fail(`--rounds takes a whole number of 1 or more, not ${values.rounds}`);
const mode = values.mode as current.SearchMode;
if (!['lexical', 'vector', 'hybrid'].includes(mode)) fail(`--mode must be lexical, vector or hybrid, not ${mode}`);
if (!existsSync(join(baselineDir, 'index.js')))
  fail(`${baselineDir} holds no build (index.js): run npm run build:ts there`);

type SearcherClass = typeof current.Searcher;
const baseline = (await import(pathToFileURL(join(baselineDir, 'index.js')).href)) as { Searcher: SearcherClass };
const builds: { name: string; Searcher: SearcherClass; times: number[]; ndcg: number[] }[] = [
  { name: 'baseline', Searcher: baseline.Searcher, times: [], ndcg: [] },
  { name: 'this build', Searcher: current.Searcher, times: [], ndcg: [] },
];

/** One index and the queries asked of it, each with how a response is scored. */
interface Workload {
  /** The index each build reads, baseline first. */
  indexDirs: [string, string];
  queries: { query: string; score(results: readonly current.SearchResult[]): number }[];
}

/** The public benchmark's repositories under --index-dir, scored by NDCG@10. */
function benchmarkWorkloads(indexDir: string, baselineIndexDir: string): Workload[] {
  const benchmarkDir = resolve(values.benchmark!);
  const repos = loadBenchmarkRepos(join(benchmarkDir, 'repos.json')).filter((repo) =>
    existsSync(join(indexDir, repo.name, 'index.db')),
  );
  if (repos.length === 0) fail(`no index of a benchmark repository under ${indexDir}`);
  return repos.map((repo) => ({
    indexDirs: [join(baselineIndexDir, repo.name), join(indexDir, repo.name)],
    queries: loadBenchmarkQueries(annotationsFile(join(benchmarkDir, 'annotations'), repo.name)).map((query) => ({
      query: query.query,
      score: (results) => ndcgAt10(results, query.targets),
    })),
  }));
}

/** Evaluation sets against their indexes, in pairs, scored by the reciprocal rank of the first expected file. */
function setWorkloads(sets: readonly string[], indexes: readonly string[]): Workload[] {
  if (sets.length !== indexes.length)
    fail(`--set and --index go in pairs: ${sets.length} sets, ${indexes.length} indexes`);
  return sets.map((set, i) => ({
    indexDirs: [resolve(indexes[i]!), resolve(indexes[i]!)],
    queries: loadEvalSet(resolve(set)).map((query) => ({
      query: query.query,
      score: (results) => {
        const rank = [...new Set(results.map((result) => result.path))].findIndex((path) =>
          (query.expected_paths ?? []).includes(path),
        );
        return rank < 0 ? 0 : 1 / (rank + 1);
      },
    })),
  }));
}

const indexDir = values['index-dir'];
const workloads = values.set
  ? setWorkloads(values.set, values.index ?? [])
  : benchmarkWorkloads(
      resolve(indexDir ?? fail('--index-dir <the indexes eval:semble made>, or --set and --index, is required')),
      resolve(values['baseline-index-dir'] ?? indexDir!),
    );
const scoreName = values.set ? 'file MRR' : 'NDCG@10';
let differing = 0;
for (const { indexDirs, queries } of workloads) {
  const searchers = await Promise.all(builds.map((build, b) => build.Searcher.open({ indexDir: indexDirs[b]! })));
  try {
    for (let round = 0; round < rounds; round++)
      for (const [q, query] of queries.entries()) {
        const paths: string[] = [];
        // Which build goes first alternates, so that neither always finds the caches warm.
        const order = (round + q) % 2 === 0 ? [0, 1] : [1, 0];
        for (const b of order) {
          const started = performance.now();
          const response = await searchers[b]!.search(query.query, { k: 10, mode, snippet: false });
          const took = performance.now() - started;
          if (round > 0 || rounds === 1) builds[b]!.times.push(took);
          if (round === 0) builds[b]!.ndcg.push(query.score(response.results));
          if (round === 0) paths[b] = response.results.map((r) => `${r.path}:${r.startLine}`).join(',');
        }
        if (round === 0 && paths[0] !== paths[1]) differing++;
      }
  } finally {
    for (const searcher of searchers) searcher.close();
  }
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
printTable(
  `${mode} search, ${workloads.length} indexes, ${builds[0]!.ndcg.length} queries, ${rounds} rounds, alternating (${describeMachine()})`,
  ['build', scoreName, 'p50', 'p95', 'mean'],
  builds.map((build) => [
    build.name,
    mean(build.ndcg).toFixed(4),
    ms(percentile(build.times, 50)),
    ms(percentile(build.times, 95)),
    ms(mean(build.times)),
  ]),
);
const [before, after] = builds as [(typeof builds)[0], (typeof builds)[0]];
process.stdout.write(
  `\nthis build / baseline: p50 ${(percentile(after.times, 50) / percentile(before.times, 50)).toFixed(3)}x, ` +
    `p95 ${(percentile(after.times, 95) / percentile(before.times, 95)).toFixed(3)}x; ` +
    `queries whose top 10 differ: ${differing}\n`,
);
