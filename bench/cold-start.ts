/**
 * The first answer (issue 41): a fresh index of a directory with
 * `oc-vector-index`, then one `oc-vector-search`, whole processes, as an
 * agent in a new worktree meets them. Built-in embedder, no model.
 *
 *   npm run build:ts && npm run bench:cold-start -- --dir <repository>
 *   npm run bench:cold-start -- --dir <repository> --baseline <other checkout>   (its dist/, alternating)
 *   npm run bench:cold-start -- --dir <repository> --runs 5 --query "render a template"
 *
 * Prints, per build, the median of the runs: the index's wall time, user and
 * system CPU (the indexer's threads together) and peak RSS, the search's
 * wall time, and their sum; with a baseline, the ratio of the sums. The runs
 * of the two builds alternate, so that the machine's drift falls on both.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describeMachine } from './lib/machine.js';
import { writeFigures } from './lib/out.js';
import { median, printTable } from './lib/stats.js';

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

function timedNode(args: string[]): { wall: number; user: number; system: number; peakKiB: number } {
  const child = spawnSync('/usr/bin/time', ['-f', TIME_FORMAT, process.execPath, ...args], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (child.error) throw new Error(`cannot run /usr/bin/time (GNU time): ${child.error.message}`);
  const line = child.stderr.split('\n').find((l) => l.startsWith('cold-start '));
  if (child.status !== 0 || !line)
    throw new Error(`${args.join(' ')} failed (${child.status}): ${child.stderr.slice(-2000)}`);
  const [wall, user, system, peakKiB] = line.split(' ').slice(1).map(Number) as [number, number, number, number];
  return { wall, user, system, peakKiB };
}

function once(checkout: string): Run {
  const db = mkdtempSync(join(tmpdir(), 'ocvector-cold-'));
  try {
    const index = timedNode([join(checkout, 'dist/cli/oc-vector-index.js'), '.', '--db', db, '--no-llm']);
    const search = timedNode([join(checkout, 'dist/cli/oc-vector-search.js'), values.query!, '--db', db]);
    return {
      indexS: index.wall,
      userS: index.user,
      systemS: index.system,
      peakMiB: index.peakKiB / 1024,
      searchS: search.wall,
    };
  } finally {
    rmSync(db, { recursive: true, force: true });
  }
}

const measured = new Map<string, Run[]>(builds.map(([name]) => [name, []]));
for (let round = 0; round < runs; round++)
  for (const [name, checkout] of builds) measured.get(name)!.push(once(checkout));

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
  `First answer on ${dir}: a fresh index, then one search (median of ${runs}; ${describeMachine()})`,
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
writeFigures('cold-start', { dir, query: values.query, builds: summary });
