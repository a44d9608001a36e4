/**
 * Change-location questions from a repository's history: the query is a
 * commit's subject, the answer the non-test source files the commit
 * touched. Everything here reads a git directory (bare or not) and nothing
 * else, so the same git directory and pinned commit give the same set.
 *
 * The rules, in the order they are applied (eval/README.md lists them too):
 * - commits before and including the pinned snapshot, newest first, merges left out;
 * - not by a bot (Renovate, Dependabot, GitHub Actions, pre-commit.ci, ...);
 * - a subject that describes a change: no revert, release or version bump,
 *   dependency bump, typo fix, fixup, CI, build or formatting commit, and at
 *   least 4 words once its `type(scope):` prefix is removed;
 * - 1 to 3 source files touched (source-files.ts: tests, docs, examples,
 *   benchmarks, generated and vendored code do not count), every one of
 *   them still at its path in the snapshot;
 * - a subject asked once (the newest commit keeps it).
 */
import { execFileSync } from 'node:child_process';
import { isSourcePath } from './source-files.js';

export interface TouchedFile {
  /** A (added), M (modified), D (deleted), T (type changed); renames show as a deletion and an addition. */
  status: string;
  path: string;
}

export interface CommitRecord {
  sha: string;
  author: string;
  email: string;
  subject: string;
  files: TouchedFile[];
}

/** `git` on a git directory (a bare clone, or a work tree's `.git`), paths unquoted. */
export function git(gitDir: string, args: readonly string[], input?: Buffer): Buffer {
  return execFileSync('git', ['--git-dir', gitDir, '-c', 'core.quotePath=false', ...args], {
    maxBuffer: 1 << 30,
    stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    ...(input ? { input } : {}),
  });
}

/** The full id of a commit-ish. */
export function resolveCommit(gitDir: string, commitish: string): string {
  return git(gitDir, ['rev-parse', '--verify', `${commitish}^{commit}`])
    .toString('utf8')
    .trim();
}

/** The non-merge commits reachable from `pin` (itself included), newest first, with the files each touched. */
export function readHistory(gitDir: string, pin: string): CommitRecord[] {
  const text = git(gitDir, [
    'log',
    '--no-merges',
    '--no-renames',
    '--name-status',
    '--format=%x1e%H%x1f%an%x1f%ae%x1f%s',
    pin,
    '--',
  ]).toString('utf8');
  return text
    .split('\x1e')
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [head, ...lines] = chunk.split('\n');
      const [sha, author, email, subject] = head!.split('\x1f') as [string, string, string, string];
      const files = lines
        .filter((line) => line.includes('\t'))
        .map((line) => {
          const [status, path] = line.split('\t') as [string, string];
          return { status: status.charAt(0), path };
        });
      return { sha, author, email, subject, files };
    });
}

/** Every file path in the snapshot, forward slashes. */
export function snapshotPaths(gitDir: string, pin: string): Set<string> {
  const text = git(gitDir, ['ls-tree', '-r', '-z', '--name-only', pin]).toString('utf8');
  return new Set(text.split('\0').filter(Boolean));
}

/**
 * Writes the snapshot's files (or those under `paths`) under `root` (which
 * must exist), as `git archive | tar -x` does. A mirror may lack the blobs of
 * its largest files (prebuilt libraries, archives): those are left out, not
 * the whole snapshot.
 */
export function layOutSnapshot(gitDir: string, pin: string, root: string, paths: readonly string[] = []): void {
  let archive: Buffer;
  try {
    archive = git(gitDir, ['archive', '--format=tar', pin, ...paths]);
  } catch (error) {
    const absent = absentBlobs(gitDir, pin);
    if (absent.length === 0) throw error;
    const pathspec = paths.length > 0 ? paths : ['.'];
    archive = git(gitDir, [
      'archive',
      '--format=tar',
      pin,
      '--',
      ...pathspec,
      ...absent.map((path) => `:(exclude,literal)${path}`),
    ]);
  }
  execFileSync('tar', ['-x', '-C', root], { input: archive, maxBuffer: 1 << 20, stdio: ['pipe', 'ignore', 'pipe'] });
}

/** The snapshot's files whose blobs the git directory does not hold. */
function absentBlobs(gitDir: string, pin: string): string[] {
  const entries = git(gitDir, ['ls-tree', '-r', '-z', pin])
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .flatMap((line) => {
      const [meta, path] = line.split('\t') as [string, string];
      const [, type, id] = meta.split(' ') as [string, string, string];
      return type === 'blob' ? [{ id, path }] : [];
    });
  const checked = git(
    gitDir,
    ['cat-file', '--batch-check'],
    Buffer.from(entries.map((entry) => `${entry.id}\n`).join('')),
  )
    .toString('utf8')
    .split('\n');
  return entries.filter((_, i) => checked[i]?.endsWith(' missing')).map((entry) => entry.path);
}

// --- subjects -------------------------------------------------------------------

/** A GitHub squash-merge's pull request number at the end (`(#7643)`): added by the host, never typed in a question. */
const PULL_REQUEST_SUFFIX = /(?:\s*\((?:#\d+(?:,\s*)?)+\))+\s*$/;
/** `feat(scope)!:`, `fix:`, Go's `caddyhttp:` and `tpl/strings:`: one token and a colon at the start. */
const PREFIX = /^([\w./*,-]+)(?:\(([^)]*)\))?!?:\s+/;

/** The subject as written, less the pull request number a host appended and runs of spaces. */
export function cleanSubject(subject: string): string {
  return subject.replace(PULL_REQUEST_SUFFIX, '').replace(/\s+/g, ' ').trim();
}

/** A branch tag (Laravel's `[13.x]`) or a tracker's ticket id (`KTOR-9819`) before the subject: bookkeeping, never typed in a question. */
const TAG = /^(?:\[[^\]\s]{1,20}\]|[A-Z][A-Z0-9]+-\d+)\s+/;

/**
 * The subject without its leading `type(scope):` or `package:` prefix (and
 * any branch tag or ticket id before it), as written otherwise (no capital
 * added); unchanged when it has none.
 */
export function withoutPrefix(subject: string): string {
  let untagged = subject;
  while (TAG.test(untagged)) untagged = untagged.replace(TAG, '');
  const bare = untagged.replace(PREFIX, '');
  return bare === '' ? subject : bare;
}

/** The conventional-commit type of a subject (`feat`, `fix`, ...), lower case, or undefined. */
function prefixType(subject: string): { type: string; scope: string } | undefined {
  const match = PREFIX.exec(subject);
  return match ? { type: match[1]!.toLowerCase(), scope: (match[2] ?? '').toLowerCase() } : undefined;
}

const BOT_NAME = /\[bot\]|^(?:renovate|dependabot|github-actions|pre-commit-ci|mergify|allcontributors|greenkeeper)\b/i;
const BOT_EMAIL = /\[bot\]@|^(?:bot|noreply-bot)@/i;

/** Conventional types whose commits change no behaviour a question would ask about. */
const NON_CHANGE_TYPES = new Set(['ci', 'build', 'style', 'release', 'revert', 'deps', 'bump']);

const SUBJECT_RULES: readonly [reason: string, test: (subject: string) => boolean][] = [
  ['revert', (s) => /^(?:revert|reapply|unrevert|reland)\b/i.test(s) || /^\w+(?:\([^)]*\))?!?:\s*revert\b/i.test(s)],
  ['merge', (s) => /^merge\b/i.test(s)],
  ['fixup', (s) => /^(?:fixup|squash|amend)!|^wip\b/i.test(s)],
  [
    'release',
    (s) =>
      /^(?:\w+(?:\([^)]*\))?!?:\s*)?(?:release|releasing|prepare (?:for )?(?:the )?(?:release|v?\d)|preparing (?:for )?release|version)\b/i.test(
        s,
      ) ||
      /\bbump(?:ed|s)? (?:the )?(?:version|to v?\d)/i.test(s) ||
      /^v?\d+\.\d+(?:\.\d+)?\b/.test(s) ||
      /\((?:release|main|master)\):/i.test(s),
  ],
  [
    'dependency',
    (s) =>
      /^\w+\((?:deps|deps-dev|dependencies)\)!?:/i.test(s) ||
      /^(?:deps|dependencies)\b/i.test(s) ||
      /^bump \S+ (?:from|to) /i.test(s) ||
      /\b(?:bump|update|upgrade)(?:s|d|ed)? (?:all |the )?(?:deps|dependencies)\b/i.test(s) ||
      /\bupdate (?:rust crate|dependency|dependencies|module|go module|\S+ crates?|lock ?file)\b/i.test(s) ||
      /\b(?:go\.(?:mod|sum)|Cargo\.lock|poetry\.lock|package-lock\.json|yarn\.lock)\b/.test(s),
  ],
  ['typo', (s) => /\btypos?\b|\bspelling\b|\bmisspell/i.test(s)],
  ['non-change type', (s) => NON_CHANGE_TYPES.has(prefixType(s)?.type ?? '')],
  [
    'under 4 words',
    (s) =>
      withoutPrefix(s)
        .split(' ')
        .filter((word) => /\p{L}/u.test(word)).length < 4,
  ],
];

/** Why a commit's subject (already cleaned) or author leaves it out, or undefined when it describes a change. */
export function subjectProblem(subject: string, author = '', email = ''): string | undefined {
  if (BOT_NAME.test(author) || BOT_EMAIL.test(email)) return 'bot';
  return SUBJECT_RULES.find(([, test]) => test(subject))?.[0];
}

// --- the set --------------------------------------------------------------------

export interface CommitQuery {
  id: string;
  /** The subject as written (pull request number removed). */
  query: string;
  /** The same without its `type(scope):` prefix (equal to `query` when it had none). */
  bare: string;
  expected_paths: string[];
  commit: string;
}

export interface CommitSetBuild {
  queries: CommitQuery[];
  /** Commits looked at (newest first, until the set was full), and why each left out was left out. */
  considered: number;
  leftOut: Record<string, number>;
}

export const MAX_ANSWER_FILES = 3;

/** The N newest commits at or before `pin` that make change-location questions (the rules above). */
export function buildCommitSet(gitDir: string, pin: string, name: string, size: number): CommitSetBuild {
  const snapshot = snapshotPaths(gitDir, pin);
  const queries: CommitQuery[] = [];
  const asked = new Set<string>();
  const leftOut: Record<string, number> = {};
  let considered = 0;
  for (const commit of readHistory(gitDir, pin)) {
    if (queries.length >= size) break;
    considered++;
    const subject = cleanSubject(commit.subject);
    const source = [...new Set(commit.files.filter((file) => isSourcePath(file.path)).map((file) => file.path))].sort();
    const problem =
      subjectProblem(subject, commit.author, commit.email) ??
      (source.length === 0
        ? 'no source file'
        : source.length > MAX_ANSWER_FILES
          ? `over ${MAX_ANSWER_FILES} source files`
          : !source.every((path) => snapshot.has(path))
            ? 'a file gone from the snapshot'
            : asked.has(subject.toLowerCase())
              ? 'subject asked already'
              : undefined);
    if (problem) {
      leftOut[problem] = (leftOut[problem] ?? 0) + 1;
      continue;
    }
    asked.add(subject.toLowerCase());
    queries.push({
      id: `${name}-${String(queries.length + 1).padStart(3, '0')}`,
      query: subject,
      bare: withoutPrefix(subject),
      expected_paths: source,
      commit: commit.sha,
    });
  }
  return { queries, considered, leftOut };
}
