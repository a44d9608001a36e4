/**
 * Issue localisation on ../shared/localisation-dev/: the text is the
 * query, the files its fix changed the answer (scored as that folder's
 * README says: lib/localise-metrics.ts). Per repository one work tree is
 * moved from base commit to base commit (oldest first, only the changed
 * files written: lib/localise-worktree.ts), the index updated incrementally
 * after each move (the built-in embedder unless --embedder names a model: a user's flow), each
 * issue of that commit searched, and a whole-file BM25 over the same tree
 * ranked beside it in the same run (lib/localise-baseline.ts).
 *
 *   npm run eval:localise                                     the dev half, every repository (hours on 2 cores)
 *   npm run eval:localise -- --repo BurntSushi/ripgrep --limit 6
 *   npm run eval:localise -- --split held-out                 the half kept for confirming, not for tuning
 *   npm run eval:localise -- --set ../shared/localisation-dev/python_reserve.jsonl
 *   npm run eval:localise -- --mode hybrid --mode lexical     one row per mode (default hybrid)
 *   npm run eval:localise -- --reuse                          keep the work trees and indexes of the last run
 *   npm run eval:localise -- --json out.json                  every instance's ranked files and gold ranks
 *   npm run eval:localise -- --features f.jsonl               each --files answer's features, for eval/tune-files.ts
 *   npm run eval:localise -- --embedder ollama:all-minilm:l6-v2 [--ollama-host <url>]   a model server's embeddings
 *                                                            (`npm run models -- --serve` serves it; default builtin)
 *
 * Work trees and indexes go to --work-dir (default eval/.cache/localise/), one
 * folder per repository; git directories are read from --mirrors (default
 * /work/.mirror, joined with repos.json's git_dir). Without --reuse each
 * repository starts from an empty tree and index.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Indexer, MAX_QUERY_LENGTH, Searcher, type SearchMode } from '../src/internal.js';
import { percentile, printTable } from './lib/stats.js';
import { ROOT } from './lib/corpora.js';
import { BASELINE_LABELS, FileBaselines, type BaselineName } from './lib/localise-baseline.js';
import {
  ACC_KS,
  RECALL_KS,
  distinctPaths,
  failedInstance,
  groupBy,
  scoreInstance,
  summariseScores,
  type InstanceScore,
} from './lib/localise-metrics.js';
import { inSplit, loadInstances, loadRepos, type LocaliseInstance, type Split } from './lib/localise-set.js';
import { commitTimes, WorkTree } from './lib/localise-worktree.js';
import { embedderFromFlags } from './lib/embedder-flag.js';

/** Results asked of a search: the most a search gives, so a ranking has as many files as it can. */
const SEARCH_K = 100;

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: join(ROOT, '..', 'shared', 'localisation-dev') },
    set: { type: 'string' },
    mirrors: { type: 'string', default: '/work/.mirror' },
    'work-dir': { type: 'string', default: join(ROOT, 'eval', '.cache', 'localise') },
    repo: { type: 'string', multiple: true },
    limit: { type: 'string' },
    split: { type: 'string', default: 'dev' },
    mode: { type: 'string', multiple: true },
    reuse: { type: 'boolean' },
    json: { type: 'string' },
    features: { type: 'string' },
    embedder: { type: 'string', default: 'builtin' },
    'ollama-host': { type: 'string' },
    'openai-base-url': { type: 'string' },
    verbose: { type: 'boolean' },
  },
});

const log = (message: string) => process.stderr.write(`eval:localise: ${message}\n`);
const fail = (message: string): never => {
  log(message);
  process.exit(2);
};

const dataDir = resolve(values.data!);
const setFile = resolve(values.set ?? join(dataDir, 'instances.jsonl'));
const split = values.split as Split;
if (!['dev', 'held-out', 'all'].includes(split)) fail(`--split takes dev, held-out or all, not ${values.split}`);
const modes = (values.mode ?? ['hybrid']) as SearchMode[];
for (const mode of modes)
  if (!['hybrid', 'lexical', 'vector'].includes(mode)) fail(`--mode takes hybrid, lexical or vector, not ${mode}`);
const limit = values.limit === undefined ? Number.POSITIVE_INFINITY : Number(values.limit);
if (values.limit !== undefined && !(Number.isInteger(limit) && limit >= 1))
  fail(`--limit takes a whole number of instances per repository, not ${values.limit}`);
const workDir = resolve(values['work-dir']!);
const { choice: embedderChoice, options: embedderOptions } = embedderFromFlags(values, fail);

const repos = loadRepos(join(dataDir, 'repos.json'));
const all = loadInstances(setFile);
for (const name of values.repo ?? [])
  if (!all.some((instance) => instance.repo === name)) fail(`no instance of ${name} in ${setFile}`);
const chosen = all.filter(
  (instance) => inSplit(instance.instance_id, split) && (!values.repo || values.repo.includes(instance.repo)),
);
const byRepo = groupBy(chosen, (instance) => [instance.repo]);
const gitDirOf = (name: string) => {
  const repo = repos[name] ?? fail(`${name} is not in ${join(dataDir, 'repos.json')}`);
  const gitDir = join(resolve(values.mirrors!), repo.git_dir);
  if (!existsSync(gitDir)) fail(`${name}: no git directory at ${gitDir} (run: fetch github:${name})`);
  return gitDir;
};

// --- methods and records ------------------------------------------------------------

/** `ocvector files`: Searcher.searchFiles, the file-level answer to an issue (its element search in the first mode). */
const FILES_METHOD = 'ocvector files';
/** How the runs embed: no model (the built-in embedder), or the model the flag names. */
const embedderLabel = values.embedder === 'builtin' ? 'no model' : values.embedder!;
const METHODS: string[] = [FILES_METHOD, ...modes.map((mode) => `ocvector ${mode}`), 'bm25', 'bm25-source'];
const LABELS: Record<string, string> = {
  [FILES_METHOD]: `ocvector --files (${modes[0]}), ${embedderLabel}`,
  ...Object.fromEntries(modes.map((mode) => [`ocvector ${mode}`, `ocvector ${mode}, ${embedderLabel}`])),
  ...BASELINE_LABELS,
};
type Gold = 'code' | 'strict';

interface InstanceRecord {
  instance_id: string;
  repo: string;
  language: string;
  base_commit: string;
  /** Characters of the issue text (trimmed), and whether ocvector was given only its first MAX_QUERY_LENGTH. */
  queryLength: number;
  cut: boolean;
  gold: Record<Gold, string[]>;
  /** Distinct files in ranked order, per method (ocvector: from SEARCH_K results; BM25: its first 100). */
  rankings: Record<string, string[]>;
  scores: Record<string, Record<Gold, InstanceScore>>;
  errors: Record<string, string>;
}

const records: InstanceRecord[] = [];
/** With --features: each instance's ranked files with their scaled features, for choosing the weights (eval/tune-files.ts). */
const features: object[] | undefined = values.features ? [] : undefined;
const timing = {
  moveMs: [] as number[],
  buildMs: [] as number[],
  updateMs: [] as number[],
  queryMs: Object.fromEntries(modes.map((mode) => [mode, [] as number[]])) as Record<SearchMode, number[]>,
  filesMs: [] as number[],
  /** Issue length of each files search, beside its time: for the latency of long issues. */
  filesLength: [] as number[],
  bm25Ms: [] as number[],
  missingBlobs: new Set<string>(),
};

// --- the run --------------------------------------------------------------------------

const started = performance.now();
for (const [name, instances] of byRepo) {
  const gitDir = gitDirOf(name);
  const times = commitTimes(
    gitDir,
    instances.map((instance) => instance.base_commit),
  );
  const ordered = [...instances]
    .sort(
      (a, b) =>
        times.get(a.base_commit)! - times.get(b.base_commit)! ||
        (a.base_commit < b.base_commit ? -1 : a.base_commit > b.base_commit ? 1 : 0) ||
        (a.instance_id < b.instance_id ? -1 : 1),
    )
    .slice(0, limit);
  const folder = join(workDir, name.replace('/', '+'));
  const tree = new WorkTree(gitDir, join(folder, 'tree'));
  const indexDir = join(folder, 'index');
  if (!values.reuse) {
    rmSync(folder, { recursive: true, force: true });
  }
  mkdirSync(indexDir, { recursive: true });
  const baselines = new FileBaselines();
  const repoStarted = performance.now();
  const commits = groupBy(ordered, (instance) => [instance.base_commit]);
  for (const [commit, atCommit] of commits) {
    const move = tree.moveTo(commit);
    timing.moveMs.push(move.ms);
    for (const path of move.missing) timing.missingBlobs.add(`${name}:${path}`);
    const isBuild = !existsSync(join(indexDir, 'index.db'));
    const summary = await new Indexer({
      path: tree.dir,
      root: tree.dir,
      indexDir,
      embedder: embedderChoice,
      embedderOptions,
      llm: false,
    }).run();
    (isBuild ? timing.buildMs : timing.updateMs).push(summary.durationMs);
    if (values.verbose || isBuild)
      log(
        `${name} @ ${commit.slice(0, 10)}: ${move.fresh ? 'laid out' : 'moved'} (${move.written} written, ${move.removed} removed, ${move.missing.length} missing blobs) in ${(move.ms / 1000).toFixed(1)} s; ` +
          `index ${isBuild ? 'built' : 'updated'} in ${(summary.durationMs / 1000).toFixed(1)} s (${summary.files.added} added, ${summary.files.changed} changed, ${summary.files.deleted} deleted; ${summary.elements.total} elements)`,
      );
    const searcher = await Searcher.open({ indexDir, embedderOptions });
    try {
      for (const instance of atCommit) records.push(await localise(instance, searcher, baselines, tree));
    } finally {
      searcher.close();
    }
    baselines.keepOnly(tree.entries);
  }
  const done = records.filter((record) => record.repo === name);
  const first = METHODS[0]!;
  const acc5 = summariseScores(done.map((record) => record.scores[first]!.code)).acc[5];
  log(
    `${name}: ${done.length} instances at ${commits.size} commits in ${((performance.now() - repoStarted) / 1000).toFixed(1)} s; ${first} Acc@5 ${pct(acc5)}`,
  );
}
const totalSeconds = (performance.now() - started) / 1000;

async function localise(
  instance: LocaliseInstance,
  searcher: Searcher,
  baselines: FileBaselines,
  tree: WorkTree,
): Promise<InstanceRecord> {
  const text = instance.problem_statement.trim();
  const cut = text.length > MAX_QUERY_LENGTH;
  const query = cut ? text.slice(0, MAX_QUERY_LENGTH).trim() : text;
  const gold: Record<Gold, string[]> = { code: instance.gold_code_files, strict: instance.gold_files };
  const record: InstanceRecord = {
    instance_id: instance.instance_id,
    repo: instance.repo,
    language: instance.language,
    base_commit: instance.base_commit,
    queryLength: text.length,
    cut,
    gold,
    rankings: {},
    scores: {},
    errors: {},
  };
  for (const mode of modes) {
    const method = `ocvector ${mode}`;
    const at = performance.now();
    try {
      const response = await searcher.search(query, { k: SEARCH_K, mode, snippet: false });
      record.rankings[method] = distinctPaths(response.results.map((result) => result.path));
    } catch (error) {
      record.errors[method] = (error as Error).message;
      record.rankings[method] = [];
    }
    timing.queryMs[mode].push(performance.now() - at);
  }
  const filesAt = performance.now();
  try {
    const response = await searcher.searchFiles(text, {
      k: SEARCH_K,
      mode: modes[0]!,
      explain: features !== undefined,
    });
    record.rankings[FILES_METHOD] = response.files.map((file) => file.path);
    features?.push({
      instance_id: instance.instance_id,
      split: inSplit(instance.instance_id, 'dev') ? 'dev' : 'held-out',
      gold: gold.code,
      files: response.files.map((file) => ({ path: file.path, ...file.explain! })),
    });
  } catch (error) {
    record.errors[FILES_METHOD] = (error as Error).message;
    record.rankings[FILES_METHOD] = [];
  }
  timing.filesMs.push(performance.now() - filesAt);
  timing.filesLength.push(text.length);
  const at = performance.now();
  const ranked = baselines.rank(tree.dir, tree.entries, text);
  timing.bm25Ms.push(performance.now() - at);
  for (const baseline of Object.keys(BASELINE_LABELS) as BaselineName[]) record.rankings[baseline] = ranked[baseline];
  for (const method of METHODS) {
    const score = (files: string[]) =>
      record.errors[method] ? failedInstance(files) : scoreInstance(record.rankings[method]!, files);
    record.scores[method] = { code: score(gold.code), strict: score(gold.strict) };
  }
  if (values.verbose) {
    const ranks = METHODS.map((method) => `${method} ${shortRanks(record.scores[method]!.code.ranks)}`).join(', ');
    log(`  ${instance.instance_id}${cut ? ' (cut)' : ''}: gold ranks ${ranks}`);
  }
  for (const [method, message] of Object.entries(record.errors))
    log(`  ${instance.instance_id}: ${method} failed: ${message}`);
  return record;
}

/** Gold ranks for the log: the first 8, and how many more. */
function shortRanks(ranks: readonly number[]): string {
  return ranks.length <= 8 ? ranks.join('/') : `${ranks.slice(0, 8).join('/')}/… (${ranks.length} gold)`;
}

// --- report ---------------------------------------------------------------------------

function pct(value: number): string {
  return (100 * value).toFixed(1);
}

const SCORE_HEADER = [...ACC_KS.map((k) => `Acc@${k}`), 'MRR', ...RECALL_KS.map((k) => `R@${k}`)];
function scoreCells(group: readonly InstanceRecord[], method: string, gold: Gold): string[] {
  const s = summariseScores(group.map((record) => record.scores[method]![gold]));
  return [...ACC_KS.map((k) => pct(s.acc[k])), s.mrr.toFixed(3), ...RECALL_KS.map((k) => pct(s.recall[k]))];
}

const isPython = (record: InstanceRecord) => record.language === 'Python';
const single = (record: InstanceRecord) => record.gold.code.length === 1;
const GROUPS: [string, (record: InstanceRecord) => boolean][] = [
  ['all', () => true],
  ['|G| = 1', single],
  ['Python', isPython],
  ['Python, |G| = 1', (r) => isPython(r) && single(r)],
  ['non-Python', (r) => !isPython(r)],
  ['non-Python, |G| = 1', (r) => !isPython(r) && single(r)],
];

const cutCount = records.filter((record) => record.cut).length;
const setName = `${setFile.slice(setFile.lastIndexOf('/') + 1)}, split ${split}`;
process.stdout.write(
  `\nIssue localisation: ${records.length} instances of ${setName}, ${byRepo.size} repositories; ` +
    `Acc@k = every gold file in the first k distinct files, in % (MRR: 1/rank of the first gold file).\n` +
    `Issue texts over ${MAX_QUERY_LENGTH.toLocaleString('en-US')} characters: ${cutCount} of ${records.length}; ` +
    `an element search (ocvector hybrid, lexical) was given their first ${MAX_QUERY_LENGTH.toLocaleString('en-US')} (the most a search takes); ocvector --files and BM25 the whole text.\n`,
);

for (const gold of ['code', 'strict'] as Gold[]) {
  const rows: string[][] = [];
  for (const [group, member] of GROUPS) {
    const members = records.filter(member);
    if (members.length === 0) continue;
    for (const method of METHODS)
      rows.push([group, String(members.length), LABELS[method]!, ...scoreCells(members, method, gold)]);
  }
  printTable(
    gold === 'code'
      ? 'Gold: gold_code_files (the primary figures)'
      : 'Gold: gold_files (strict: docs, changelogs and build files count too)',
    ['instances', 'n', 'method', ...SCORE_HEADER],
    rows,
  );
}

const compact = (group: readonly InstanceRecord[]) =>
  METHODS.flatMap((method) => {
    const s = summariseScores(group.map((record) => record.scores[method]!.code));
    return [pct(s.acc[1]), pct(s.acc[5]), s.mrr.toFixed(3)];
  });
const compactHeader = METHODS.flatMap((method) => {
  const short = method === 'bm25' ? 'BM25' : method === 'bm25-source' ? 'BM25-src' : method.replace('ocvector ', '');
  return [`${short} @1`, `${short} @5`, `${short} MRR`];
});
const byLanguage = [...groupBy(records, (record) => [record.language])].sort(([a], [b]) => (a < b ? -1 : 1));
printTable(
  'By language (gold_code_files; Acc@1, Acc@5 in %, MRR)',
  ['language', 'n', '|G|=1', ...compactHeader],
  byLanguage.map(([language, group]) => [
    language,
    String(group.length),
    String(group.filter(single).length),
    ...compact(group),
  ]),
);
printTable(
  'By repository (gold_code_files; Acc@1, Acc@5 in %, MRR)',
  ['repository', 'language', 'n', ...compactHeader],
  [...groupBy(records, (record) => [record.repo])].map(([repo, group]) => [
    repo,
    group[0]!.language,
    String(group.length),
    ...compact(group),
  ]),
);

const p = (list: number[], q: number) => (list.length > 0 ? percentile(list, q).toFixed(q === 50 ? 1 : 0) : '–');
const mean = (list: number[]) => (list.length > 0 ? list.reduce((a, b) => a + b, 0) / list.length : 0);
const timingRow = (step: string, list: number[]) => [
  step,
  String(list.length),
  p(list, 50),
  p(list, 95),
  mean(list).toFixed(0),
];
printTable(
  'Timing',
  ['step', 'count', 'p50 ms', 'p95 ms', 'mean ms'],
  [
    timingRow('work tree moved to a commit', timing.moveMs),
    timingRow('index built (first commit)', timing.buildMs),
    timingRow('index updated (next commits)', timing.updateMs),
    ...modes.map((mode) => timingRow(`ocvector ${mode} query (k = ${SEARCH_K})`, timing.queryMs[mode])),
    timingRow(`ocvector --files (k = ${SEARCH_K}, whole text)`, timing.filesMs),
    timingRow(
      'ocvector --files, issues over 5,000 characters',
      timing.filesMs.filter((_, i) => timing.filesLength[i]! > 5_000),
    ),
    timingRow('both BM25 rankings', timing.bm25Ms),
  ],
);
const failures = records.filter((record) => Object.keys(record.errors).length > 0).length;
process.stdout.write(
  `\n${totalSeconds.toFixed(0)} s in all, ${(totalSeconds / Math.max(1, records.length)).toFixed(1)} s per instance. ` +
    `Searches that failed (scored 0): ${failures}. Blobs the mirrors lack (left out of the trees): ${timing.missingBlobs.size}. ` +
    `Work trees and indexes: ${workDir}.\n`,
);

if (values.features && features)
  writeFileSync(values.features, `${features.map((line) => JSON.stringify(line)).join('\n')}\n`);

if (values.json)
  writeFileSync(
    values.json,
    `${JSON.stringify(
      {
        set: setFile,
        split,
        modes,
        searchK: SEARCH_K,
        maxQueryLength: MAX_QUERY_LENGTH,
        cut: cutCount,
        timing: { ...timing, missingBlobs: [...timing.missingBlobs], seconds: totalSeconds },
        instances: records,
      },
      null,
      1,
    )}\n`,
  );
