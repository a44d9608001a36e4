/**
 * The first answer (issue 41): a fresh index of a directory with
 * `oc-vector-index`, then one `oc-vector-search`, whole processes, as an
 * agent in a new worktree meets them. Built-in embedder, no model.
 *
 *   npm run build:ts && npm run bench:cold-start -- --dir <repository>
 *   npm run bench:cold-start -- --dir <repository> --baseline <other checkout>   (its dist/, alternating)
 *   npm run bench:cold-start -- --dir <repository> --runs 5 --query "render a template"
 *   npm run bench:cold-start -- --dir <repository> --worktree   (in a new linked worktree of it)
 *
 * With --worktree, the directory is committed to a git repository of its own (in a
 * temporary directory), indexed once there by each build, untimed; each run then adds a
 * linked worktree of it (`git worktree add`), as an agent given a branch of its own
 * meets it, and indexes and searches there.
 *
 * Prints, per build, the median of the runs: the index's wall time, user and
 * system CPU (the indexer's threads together) and peak RSS, the search's
 * wall time, and their sum; with a baseline, the ratio of the sums. The runs
 * of the two builds alternate, so that the machine's drift falls on both.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describeMachine } from '../eval/lib/machine.js';
import { writeFigures } from './lib/out.js';
import { median, printTable } from '../eval/lib/stats.js';

interface Run {
  indexS: number;
  userS: number;
  systemS: number;
  peakMiB: number;
  searchS: number;
}

const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    baseline: { type: 'string' },
    runs: { type: 'string', default: '3' },
    query: { type: 'string', default: 'render a template' },
    worktree: { type: 'boolean', default: false },
  },
});
if (!values.dir) {
  process.stderr.write('bench:cold-start: --dir <repository> is needed (the directory to index)\n');
  process.exit(2);
}
const dir = resolve(values.dir);
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  process.stderr.write(`bench:cold-start: --runs must be a whole number of at least 1, not ${values.runs}\n`);
  process.exit(2);
}
const builds: [string, string][] = [['this checkout', fileURLToPath(new URL('..', import.meta.url))]];
if (values.baseline) builds.unshift(['baseline', resolve(values.baseline)]);

/** GNU time's report: wall seconds, user and system CPU seconds, peak RSS in KiB. */
const TIME_FORMAT = 'cold-start %e %U %S %M';

function timedNode(args: string[], cwd = dir): { wall: number; user: number; system: number; peakKiB: number } {
  const child = spawnSync('/usr/bin/time', ['-f', TIME_FORMAT, process.execPath, ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (child.error) throw new Error(`cannot run /usr/bin/time (GNU time): ${child.error.message}`);
  const line = child.stderr.split('\n').find((l) => l.startsWith('cold-start '));
  if (child.status !== 0 || !line)
    throw new Error(`${args.join(' ')} failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const [wall, user, system, peakKiB] = line.split(' ').slice(1).map(Number) as [number, number, number, number];
  return { wall, user, system, peakKiB };
}

/** Every temporary directory the bench made, removed at the end. */
const scratch: string[] = [];
/** Per build: the git repository of the directory, indexed by that build (--worktree). */
const mainCheckouts = new Map<string, string>();
let worktrees = 0;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.email=bench@example.com', '-c', 'user.name=bench', ...args], {
    cwd,
    stdio: 'ignore',
  });
}

function mainCheckout(checkout: string): string {
  let main = mainCheckouts.get(checkout);
  if (!main) {
    const parent = mkdtempSync(join(tmpdir(), 'ocvector-cold-git-'));
    scratch.push(parent);
    main = join(parent, 'main');
    cpSync(dir, main, { recursive: true, filter: (path) => !path.endsWith('/.ocvector') && !path.endsWith('/.git') });
    git(main, 'init', '-q', '-b', 'main');
    git(main, 'add', '-A');
    git(main, 'commit', '-q', '--no-verify', '-m', 'bench');
    timedNode([join(checkout, 'dist/cli/oc-vector-index.js'), '.', '--no-llm'], main);
    mainCheckouts.set(checkout, main);
  }
  return main;
}

/** `oc-vector-index .` then one `oc-vector-search` of the build in `cwd`, each with `dbArgs`. */
function indexThenSearch(checkout: string, cwd: string, dbArgs: string[]): Run {
  const index = timedNode([join(checkout, 'dist/cli/oc-vector-index.js'), '.', ...dbArgs, '--no-llm'], cwd);
  const search = timedNode([join(checkout, 'dist/cli/oc-vector-search.js'), values.query!, ...dbArgs], cwd);
  return {
    indexS: index.wall,
    userS: index.user,
    systemS: index.system,
    peakMiB: index.peakKiB / 1024,
    searchS: search.wall,
  };
}

/** A first index and search in a new linked worktree of the build's main checkout. */
function onceInWorktree(checkout: string): Run {
  const main = mainCheckout(checkout);
  const tree = join(dirname(main), `worktree-${++worktrees}`);
  git(main, 'worktree', 'add', '-q', '--detach', tree);
  try {
    return indexThenSearch(checkout, tree, []);
  } finally {
    git(main, 'worktree', 'remove', '--force', tree);
  }
}

function once(checkout: string): Run {
  if (values.worktree) return onceInWorktree(checkout);
  const db = mkdtempSync(join(tmpdir(), 'ocvector-cold-'));
  try {
    return indexThenSearch(checkout, dir, ['--db', db]);
  } finally {
    rmSync(db, { recursive: true, force: true });
  }
}

const measured = new Map<string, Run[]>(builds.map(([name]) => [name, []]));
try {
  for (let round = 0; round < runs; round++)
    for (const [name, checkout] of builds) measured.get(name)!.push(once(checkout));
} finally {
  for (const path of scratch) rmSync(path, { recursive: true, force: true });
}

const summary = builds.map(([name]) => {
  const all = measured.get(name)!;
  const pick = (f: (r: Run) => number) => median(all.map(f));
  return {
    build: name,
    indexS: pick((r) => r.indexS),
    userS: pick((r) => r.userS),
    systemS: pick((r) => r.systemS),
    peakMiB: pick((r) => r.peakMiB),
    searchS: pick((r) => r.searchS),
    firstAnswerS: pick((r) => r.indexS + r.searchS),
    runs: all,
  };
});
printTable(
  `First answer on ${dir}${values.worktree ? ', in a new linked worktree of it' : ''}: a first index, then one search (median of ${runs}; ${describeMachine()})`,
  ['build', 'index', 'CPU user + system', 'peak RSS', 'search', 'first answer'],
  summary.map((s) => [
    s.build,
    `${s.indexS.toFixed(2)} s`,
    `${s.userS.toFixed(2)} + ${s.systemS.toFixed(2)} s`,
    `${s.peakMiB.toFixed(0)} MiB`,
    `${s.searchS.toFixed(2)} s`,
    `${s.firstAnswerS.toFixed(2)} s`,
  ]),
);
if (summary.length === 2)
  process.stdout.write(
    `\nthis checkout / baseline, first answer: ${(summary[1]!.firstAnswerS / summary[0]!.firstAnswerS).toFixed(2)}\n`,
  );
writeFigures(values.worktree ? 'cold-start-worktree' : 'cold-start', {
  dir,
  query: values.query,
  worktree: values.worktree,
  builds: summary,
});
