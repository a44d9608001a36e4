/**
 * How long `--files` takes on a long issue (Searcher.searchFiles): issues of
 * a localisation set made 10,000 characters long (each followed by the next
 * issues of the same repository), answered from an index of that
 * repository; beside it, in the same process, the element search of the
 * first 2,000 characters (all a search takes) as the baseline.
 *
 *   npm run bench:issue-files -- --index eval/.cache/localise/django+django/index --repo django/django
 *   npm run bench:issue-files -- --index <dir> --repo <name> --set <instances.jsonl> --length 10000 --rounds 3
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_QUERY_LENGTH, Searcher } from '../src/internal.js';
import { ROOT } from '../eval/lib/corpora.js';
import { loadInstances } from '../eval/lib/localise-set.js';
import { percentile, printTable } from '../eval/lib/stats.js';

const { values } = parseArgs({
  options: {
    index: { type: 'string' },
    repo: { type: 'string' },
    set: { type: 'string', default: join(ROOT, '..', 'shared', 'localisation-dev', 'instances.jsonl') },
    length: { type: 'string', default: '10000' },
    issues: { type: 'string', default: '20' },
    rounds: { type: 'string', default: '3' },
  },
});
if (!values.index || !values.repo) {
  process.stderr.write('bench:issue-files: give --index <index directory> and --repo <owner/name of the set>\n');
  process.exit(2);
}
const length = Number(values.length);
const texts = loadInstances(values.set!)
  .filter((instance) => instance.repo === values.repo)
  .map((instance) => instance.problem_statement.trim());
if (texts.length === 0) {
  process.stderr.write(`bench:issue-files: no issue of ${values.repo} in ${values.set}\n`);
  process.exit(2);
}
const issues = texts.slice(0, Number(values.issues)).map((text, i) => {
  let long = text;
  for (let next = i + 1; long.length < length; next++) long += `\n\n${texts[next % texts.length]}`;
  return long.slice(0, length);
});

const searcher = await Searcher.open({ indexDir: values.index });
const filesMs: number[] = [];
const searchMs: number[] = [];
const rounds = Number(values.rounds);
let elements = 0;
try {
  // The first round warms the caches and is not counted.
  for (let round = 0; round <= rounds; round++)
    for (const issue of issues) {
      let at = performance.now();
      await searcher.searchFiles(issue, { k: 10 });
      if (round > 0) filesMs.push(performance.now() - at);
      at = performance.now();
      elements = (await searcher.search(issue.slice(0, MAX_QUERY_LENGTH), { k: 10, snippet: false })).elements;
      if (round > 0) searchMs.push(performance.now() - at);
    }
} finally {
  searcher.close();
}
const row = (label: string, list: number[]) => [
  label,
  String(list.length),
  percentile(list, 50).toFixed(0),
  percentile(list, 95).toFixed(0),
];
printTable(
  `${values.repo}: ${issues.length} issues of ${length.toLocaleString('en-US')} characters, ${elements.toLocaleString('en-US')} elements, ${rounds} rounds`,
  ['answer', 'n', 'p50 ms', 'p95 ms'],
  [
    row('--files (the whole issue)', filesMs),
    row(`element search (its first ${MAX_QUERY_LENGTH.toLocaleString('en-US')} characters)`, searchMs),
  ],
);
