/**
 * Builds the change-location (commit) sets from their repositories' git
 * histories (run again only to renew them; the sets are kept under version
 * control):
 *
 *   npm run eval:build-commit-sets                              every repository of eval/lib/commit-corpora.ts
 *   npm run eval:build-commit-sets -- --commits-corpora <dir>   git directories elsewhere (default: $OCVECTOR_COMMIT_CORPORA, ../corpora/commits)
 *   npm run eval:build-commit-sets -- --set commits-caddy       one set
 *
 * A query is a commit's subject; the answer, the source files it touched
 * (the rules are in eval/lib/commit-history.ts and eval/README.md). The
 * same git directories give the same sets: only commits at or before each
 * repository's pinned snapshot are read.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCommitSet, git, MAX_ANSWER_FILES, resolveCommit, type CommitQuery } from './lib/commit-history.js';
import {
  COMMIT_CORPORA,
  COMMIT_SET_FILES,
  commitCorporaDir,
  gitDirOf,
  type CommitCorpus,
  type CommitSetSource,
} from './lib/commit-corpora.js';
import { SETS_DIR } from './lib/corpora.js';

const { values } = parseArgs({
  options: { 'commits-corpora': { type: 'string' }, set: { type: 'string', multiple: true } },
});
const log = (message: string) => process.stderr.write(`eval:build-commit-sets: ${message}\n`);
const corporaDir = commitCorporaDir(values['commits-corpora']);
const wanted = values.set ? COMMIT_CORPORA.filter((corpus) => values.set!.includes(corpus.set)) : COMMIT_CORPORA;
for (const name of values.set ?? [])
  if (!COMMIT_CORPORA.some((corpus) => corpus.set === name))
    throw new Error(`no commit set ${name}; known: ${COMMIT_CORPORA.map((corpus) => corpus.set).join(', ')}`);

const jsonl = (queries: readonly object[]) => `${queries.map((query) => JSON.stringify(query)).join('\n')}\n`;

function readme(corpus: CommitCorpus, source: CommitSetSource): string {
  const leftOut = Object.entries(source.left_out)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return `# \`${corpus.set}\`: change-location questions from ${corpus.url.replace('https://github.com/', '')}'s history

Written by \`npm run eval:build-commit-sets\`; the rules are in [../../README.md](../../README.md#change-location-sets-commits).

- **Repository:** ${corpus.url} (${corpus.language}), snapshot \`${source.commit}\` (${source.commit_date}). The
  snapshot is what \`npm run eval\` indexes, laid out from the git directory
  \`<commit corpora>/${corpus.name}\` (\`git clone --bare ${corpus.url} <dir>/${corpus.name}\`).
- **Queries (${source.queries}):** the subjects of the ${source.queries} newest commits at or before the snapshot that pass the
  rules, newest first, as written less a trailing pull request number; \`${COMMIT_SET_FILES.noPrefix}\` holds the same
  queries without their \`type(scope):\` prefix (${source.prefixed} of ${source.queries} had one).
- **Answers:** the 1 to ${MAX_ANSWER_FILES} source files each commit touched (tests, docs, examples, benchmarks, generated
  and vendored code and dot-directories do not count), all still at their paths in the snapshot.
- **Left out** on the way (${source.considered} commits looked at): ${leftOut}.
- Each query names its \`commit\`, so an answer can be checked with \`git show <commit>\`.
`;
}

let absent = 0;
for (const corpus of wanted) {
  const gitDir = gitDirOf(corporaDir, corpus.name);
  if (!gitDir) {
    log(
      `${corpus.set}: no git directory at ${join(corporaDir, corpus.name)} (git clone --bare ${corpus.url} it); left out`,
    );
    absent++;
    continue;
  }
  const pin = resolveCommit(gitDir, corpus.pin);
  const built = buildCommitSet(gitDir, pin, corpus.set, corpus.size);
  const prefixed = built.queries.filter((query) => query.bare !== query.query);
  const source: CommitSetSource = {
    kind: 'commits',
    corpus: corpus.name,
    repository: corpus.url,
    language: corpus.language,
    commit: pin,
    commit_date: git(gitDir, ['show', '-s', '--format=%cI', pin]).toString('utf8').trim(),
    queries: built.queries.length,
    prefixed: prefixed.length,
    considered: built.considered,
    left_out: built.leftOut,
  };
  const dir = join(SETS_DIR, corpus.set);
  mkdirSync(dir, { recursive: true });
  const entry = (query: CommitQuery, text: string) => ({
    id: query.id,
    query: text,
    expected_paths: query.expected_paths,
    commit: query.commit,
  });
  writeFileSync(join(dir, COMMIT_SET_FILES.asWritten), jsonl(built.queries.map((query) => entry(query, query.query))));
  if (prefixed.length > 0)
    writeFileSync(join(dir, COMMIT_SET_FILES.noPrefix), jsonl(built.queries.map((query) => entry(query, query.bare))));
  else rmSync(join(dir, COMMIT_SET_FILES.noPrefix), { force: true });
  writeFileSync(join(dir, 'source.json'), `${JSON.stringify(source, null, 2)}\n`);
  writeFileSync(join(dir, 'README.md'), readme(corpus, source));
  process.stdout.write(
    `${corpus.set}: ${built.queries.length} queries (${prefixed.length} with a prefix) from ${built.considered} commits up to ${pin.slice(0, 12)}\n`,
  );
}
if (absent > 0) process.exitCode = 2;
