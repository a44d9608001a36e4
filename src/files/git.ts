/**
 * `--since <rev>`: the files git says changed since a revision, so that a
 * re-index can skip the full scan. Committed, staged and unstaged changes
 * come from `git diff --name-status <rev>`; new files from `git ls-files
 * --others --exclude-standard`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { FilesError } from './errors.js';

const run = promisify(execFile);

/**
 * Git obeys the repository's own `.git/config`, which can arrive with a tree (an archive, a
 * restored cache): `core.fsmonitor` there names a program that `git diff` and `git ls-files`
 * run at every call, here turned off on the command line, which outranks every config file.
 * A clean filter that config defines for a path `.gitattributes` names would still run when
 * `git diff` compares a changed file: `--since` asks git, which trusts the repository as git does.
 */
const NO_FSMONITOR = ['-c', 'core.fsmonitor=false'];

export interface GitChanges {
  /** Root-relative paths added or modified (renames: the new path). */
  changed: string[];
  /** Root-relative paths deleted (renames: the old path). */
  deleted: string[];
}

export async function gitChangesSince(root: string, revision: string): Promise<GitChanges> {
  if (!/^[\w./@^~{}:-]+$/.test(revision) || revision.startsWith('-')) {
    throw new FilesError(`--since: "${revision}" is not a git revision`, 'BAD_REVISION');
  }
  const git = async (...args: string[]) => {
    try {
      const { stdout } = await run('git', ['-C', root, ...NO_FSMONITOR, '-c', 'core.quotepath=off', ...args], {
        maxBuffer: 64 << 20,
      });
      return stdout;
    } catch (error) {
      const e = error as { code?: string; stderr?: string; message: string };
      if (e.code === 'ENOENT') throw new FilesError('--since needs git, which is not installed', 'GIT_MISSING');
      throw new FilesError(`--since ${revision}: git failed: ${(e.stderr || e.message).trim()}`, 'GIT_FAILED');
    }
  };
  const changes: GitChanges = { changed: [], deleted: [] };
  const diff = await git('diff', '--name-status', '-M', '-z', revision, '--relative', '--');
  const fields = diff.split('\0').filter(Boolean);
  for (let i = 0; i < fields.length; ) {
    const status = fields[i++]!;
    if (status.startsWith('R') || status.startsWith('C')) {
      const from = fields[i++]!;
      const to = fields[i++]!;
      if (status.startsWith('R')) changes.deleted.push(from);
      changes.changed.push(to);
    } else if (status.startsWith('D')) changes.deleted.push(fields[i++]!);
    else changes.changed.push(fields[i++]!);
  }
  const untracked = await git('ls-files', '--others', '--exclude-standard', '-z');
  changes.changed.push(...untracked.split('\0').filter(Boolean));
  return changes;
}

/** The commit checked out at `root`, when it is a git work tree (and git is installed); undefined otherwise. */
export async function gitHead(root: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', root, ...NO_FSMONITOR, 'rev-parse', '--verify', '--quiet', 'HEAD'], {
      timeout: 10_000,
    });
    const commit = stdout.trim();
    return /^[0-9a-f]{40,64}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined;
  }
}
