/**
 * Linked git worktrees (`git worktree add`): where an agent works on a branch of its own,
 * beside the main checkout. Read from the files git leaves, without running git: a
 * linked worktree's `.git` is a file naming its git directory, and that directory's
 * `commondir` names the repository's own `.git`, whose parent is the main worktree.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The main worktree of the repository `root` is a linked worktree of; undefined when
 * `root` is the main worktree, no git work tree, a submodule (its `.git` file names a
 * directory without `commondir`), or one of a bare repository (which has no main worktree).
 */
export function mainWorktreeOf(root: string): string | undefined {
  const pointer = readText(join(root, '.git'));
  const gitDir = pointer?.match(/^gitdir: (.+)$/m)?.[1]?.trim();
  if (!gitDir) return undefined;
  const absoluteGitDir = resolve(root, gitDir);
  const commonDir = readText(join(absoluteGitDir, 'commondir'))?.trim();
  if (!commonDir) return undefined;
  const repositoryDir = resolve(absoluteGitDir, commonDir);
  if (basename(repositoryDir) !== '.git') return undefined;
  const main = dirname(repositoryDir);
  return main === resolve(root) ? undefined : main;
}

/** A small file's text; undefined where there is none (or a directory, as a main worktree's `.git` is). */
function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
