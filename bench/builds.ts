/**
 * Search latency of two builds of ocvector over the same indexes, in one
 * process, alternating query by query: a refactor or a ranking change is
 * timed against the build before it under the same load, which two separate
 * runs on a shared machine cannot do. Each build also scores the public
 * benchmark's queries (NDCG@10), so a change that should not move the
 * ranking is seen not to.
 *
 *   npm run bench:builds -- --baseline <other checkout>/dist --index-dir <dir>
 *
 * --baseline: the other build's dist/ (`npm run build:ts` there). --index-dir:
 * indexes both builds can read, one per repository, as eval:semble leaves them
 * (`npm run eval:semble -- --repos <dir> --index-dir <dir>`). --rounds: how many
 * times the queries are run (default 3; the first is also the warm-up).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import * as current from '../src/index.js';
import { annotationsFile, loadBenchmarkQueries, loadBenchmarkRepos, ndcgAt10 } from '../src/eval/benchmark.js';
import { ROOT } from '../eval/lib/corpora.js';
import { describeMachine } from './lib/machine.js';
import { ms, percentile, printTable } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    'index-dir': { type: 'string' },
    benchmark: { type: 'string', default: join(ROOT, '..', 'shared', 'semble-benchmark') },
    rounds: { type: 'string', default: '3' },
    mode: { type: 'string', default: 'hybrid' },
  },
});
const fail = (message: string): never => {
  process.stderr.write(`bench:builds: ${message}\n`);
  process.exit(2);
};
const baselineDir = resolve(values.baseline ?? fail('--baseline <dist directory of the other build> is required'));
const indexDir = resolve(values['index-dir'] ?? fail('--index-dir <the indexes eval:semble made> is required'));
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

const benchmarkDir = resolve(values.benchmark!);
const repos = loadBenchmarkRepos(join(benchmarkDir, 'repos.json')).filter((repo) =>
  existsSync(join(indexDir, repo.name, 'index.db')),
);
if (repos.length === 0) fail(`no index of a benchmark repository under ${indexDir}`);
let differing = 0;
for (const repo of repos) {
  const queries = loadBenchmarkQueries(annotationsFile(join(benchmarkDir, 'annotations'), repo.name));
  const searchers = await Promise.all(
    builds.map((build) => build.Searcher.open({ indexDir: join(indexDir, repo.name) })),
  );
  try {
    for (let round = 0; round < rounds; round++)
      for (const query of queries) {
        const paths: string[] = [];
        // Which build goes first alternates, so that neither always finds the caches warm.
        const order = (round + queries.indexOf(query)) % 2 === 0 ? [0, 1] : [1, 0];
        for (const b of order) {
          const started = performance.now();
          const response = await searchers[b]!.search(query.query, { k: 10, mode, snippet: false });
          const took = performance.now() - started;
          if (round > 0 || rounds === 1) builds[b]!.times.push(took);
          if (round === 0) builds[b]!.ndcg.push(ndcgAt10(response.results, query.targets));
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
  `${mode} search, ${repos.length} repositories, ${builds[0]!.ndcg.length} queries, ${rounds} rounds, alternating (${describeMachine()})`,
  ['build', 'NDCG@10', 'p50', 'p95', 'mean'],
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
